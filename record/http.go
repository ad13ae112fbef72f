package record

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
)

// Handler records each request next serves as a span of id. The outcome,
// in this order: the request's context ended by its deadline is Timeout,
// ended otherwise (the client went away) is Canceled; a 5xx status is
// Failure; anything else is Success. A panic in next is Failure (and
// goes on panicking). A request whose connection next hijacked counts by
// the status written before, Success when none was.
//
// The ResponseWriter next sees keeps http.Flusher and http.Hijacker
// exactly when the server's writer has them, and unwraps
// (http.ResponseController) to it for the rest.
func Handler(id *Identity, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s := id.Begin()
		defer s.Finish(Failure) // a no-op once the Finish below ran: it clears s
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(wrap(sw), r)
		s.Finish(outcome(r.Context(), sw.status))
	})
}

// outcome maps a finished request to its outcome (see Handler).
func outcome(ctx context.Context, status int) Outcome {
	switch err := ctx.Err(); {
	case errors.Is(err, context.DeadlineExceeded):
		return Timeout
	case err != nil:
		return Canceled
	case status >= 500 && status <= 599:
		return Failure
	}
	return Success
}

// statusWriter remembers the first final status written.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 && code >= 200 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the server's writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

type flushWriter struct{ *statusWriter }

func (w flushWriter) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK // flushing sends the headers
	}
	w.ResponseWriter.(http.Flusher).Flush()
}

type hijackWriter struct{ *statusWriter }

func (w hijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return w.ResponseWriter.(http.Hijacker).Hijack()
}

type flushHijackWriter struct{ *statusWriter }

func (w flushHijackWriter) Flush() { flushWriter(w).Flush() }

func (w flushHijackWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return hijackWriter(w).Hijack()
}

// wrap returns sw with exactly the optional interfaces its writer has, so
// a handler's type assertion answers as it would without the recorder.
func wrap(sw *statusWriter) http.ResponseWriter {
	_, f := sw.ResponseWriter.(http.Flusher)
	_, h := sw.ResponseWriter.(http.Hijacker)
	switch {
	case f && h:
		return flushHijackWriter{sw}
	case f:
		return flushWriter{sw}
	case h:
		return hijackWriter{sw}
	}
	return sw
}
