package record

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestHandlerOutcomes(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		handler http.HandlerFunc
		want    Outcome
	}{
		{"200", nil, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) }, Success},
		{"nothing written", nil, func(w http.ResponseWriter, r *http.Request) {}, Success},
		{"body only", nil, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }, Success},
		{"404", nil, func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, Success},
		{"499", nil, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(499) }, Success},
		{"500", nil, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }, Failure},
		{"503", nil, func(w http.ResponseWriter, r *http.Request) { http.Error(w, "busy", http.StatusServiceUnavailable) }, Failure},
		{"599", nil, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(599) }, Failure},
		{"100 then 500", nil, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(100); w.WriteHeader(500) }, Failure},
		{"body then 500", nil, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok"); w.WriteHeader(500) }, Success},
		{"canceled", canceled, func(w http.ResponseWriter, r *http.Request) {}, Canceled},
		{"canceled with 500", canceled, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(500) }, Canceled},
		{"deadline", expired, func(w http.ResponseWriter, r *http.Request) {}, Timeout},
		{"deadline with 503", expired, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }, Timeout},
		{"panic", nil, func(w http.ResponseWriter, r *http.Request) { panic("boom") }, Failure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := New(Config{Spans: true})
			id := rec.Register("request")
			rec.Start()
			req := httptest.NewRequest("GET", "/", nil)
			if tc.ctx != nil {
				req = req.WithContext(tc.ctx)
			}
			func() {
				defer func() { recover() }()
				Handler(id, tc.handler).ServeHTTP(httptest.NewRecorder(), req)
			}()
			rec.Stop()
			r := rec.Results()[0]
			if r.Observations != 1 || len(r.Spans) != 1 || r.Spans[0].Outcome != tc.want {
				t.Fatalf("recorded %+v, %+v; want one %v", r.Outcomes, r.Spans, tc.want)
			}
		})
	}
}

// plainWriter has neither Flush nor Hijack.
type plainWriter struct{ http.ResponseWriter }

// hijackOnly has Hijack and no Flush.
type hijackOnly struct{ http.ResponseWriter }

func (hijackOnly) Hijack() (net.Conn, *bufio.ReadWriter, error) { return nil, nil, nil }

// flushHijack has both.
type flushHijack struct{ *httptest.ResponseRecorder }

func (flushHijack) Hijack() (net.Conn, *bufio.ReadWriter, error) { return nil, nil, nil }

func TestHandlerKeepsInterfaces(t *testing.T) {
	for _, tc := range []struct {
		name         string
		w            http.ResponseWriter
		flush, hijak bool
	}{
		{"neither", plainWriter{httptest.NewRecorder()}, false, false},
		{"flusher", httptest.NewRecorder(), true, false},
		{"hijacker", hijackOnly{httptest.NewRecorder()}, false, true},
		{"both", flushHijack{httptest.NewRecorder()}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := New(Config{})
			id := rec.Register("request")
			rec.Start()
			defer rec.Stop()
			var seen http.ResponseWriter
			Handler(id, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = w })).
				ServeHTTP(tc.w, httptest.NewRequest("GET", "/", nil))
			_, f := seen.(http.Flusher)
			_, h := seen.(http.Hijacker)
			if f != tc.flush || h != tc.hijak {
				t.Errorf("handler's writer: Flusher %v, Hijacker %v; want %v, %v", f, h, tc.flush, tc.hijak)
			}
			u, ok := seen.(interface{ Unwrap() http.ResponseWriter })
			if !ok || u.Unwrap() != tc.w {
				t.Error("the writer does not unwrap to the server's")
			}
		})
	}
}

// TestHandlerServer runs the middleware in a real server: streaming
// through Flush and http.ResponseController, a hijacked connection, and a
// client that goes away.
func TestHandlerServer(t *testing.T) {
	rec := New(Config{Spans: true})
	id := rec.Register("request")
	gone := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "a")
		w.(http.Flusher).Flush()
		rc := http.NewResponseController(w)
		if err := rc.SetWriteDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Errorf("ResponseController through the recorder: %v", err)
		}
		io.WriteString(w, "b")
		if err := rc.Flush(); err != nil {
			t.Errorf("ResponseController.Flush: %v", err)
		}
	})
	mux.HandleFunc("/hijack", func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Errorf("Hijack: %v", err)
			return
		}
		buf.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi")
		buf.Flush()
		conn.Close()
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
		close(gone)
	})
	srv := httptest.NewServer(Handler(id, mux))
	defer srv.Close()
	rec.Start()

	for _, path := range []string{"/stream", "/hijack"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(body) != 2 {
			t.Errorf("%s: %d %q", path, resp.StatusCode, body)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/slow", nil)
	go func() { time.Sleep(50 * time.Millisecond); cancel() }()
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("the canceled request succeeded")
	}
	<-gone
	// The server has seen the client go; the span finishes just after.
	deadline := time.Now().Add(5 * time.Second)
	for rec.Snapshot().Identities[0].Completed < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	rec.Stop()
	r := rec.Results()[0]
	if want := (Outcomes{Success: 2, Canceled: 1}); r.Outcomes != want {
		t.Errorf("outcomes %+v, want %+v", r.Outcomes, want)
	}
}
