package record_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/benchsup/benchsup/record"
)

// A program registers its identities, starts the recorder, marks the
// boundaries of the work it does, and stops: the counts are exact, and
// Config.Output (os.Stdout, say) would receive the whole result as JSON.
func Example() {
	rec := record.New(record.Config{}) // reservoir of 10,000 spans per identity
	req := rec.Register("request")
	rec.Start()

	for i := range 10 {
		s := req.Begin()
		// ... the work of one request ...
		if i%5 == 4 {
			s.Finish(record.Failure)
			continue
		}
		s.Finish(record.Success)
	}
	s := req.Begin() // still running at Stop: unfinished

	if err := rec.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
	_ = s
	for _, r := range rec.Results() {
		fmt.Printf("%s: %d observations, %d success, %d failure, %d unfinished, %d retained of %s %d\n",
			r.Identity, r.Observations, r.Outcomes.Success, r.Outcomes.Failure, r.Outcomes.Unfinished,
			r.Retained, r.Retention.Policy, r.Retention.Capacity)
	}
	// Output:
	// request: 10 observations, 8 success, 2 failure, 1 unfinished, 10 retained of reservoir 10000
}

// Handler records every request a server answers: a 5xx is a failure, a
// request whose client went away is canceled, one past its deadline a
// timeout.
func ExampleHandler() {
	rec := record.New(record.Config{})
	api := rec.Register("api")
	rec.Start()

	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "broken", 500) })
	srv := httptest.NewServer(record.Handler(api, mux))
	for _, path := range []string{"/ok", "/ok", "/broken"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
	}
	srv.Close() // waits for the handlers, so every span has finished

	rec.Stop()
	o := rec.Results()[0].Outcomes
	fmt.Printf("success %d, failure %d\n", o.Success, o.Failure)
	// Output:
	// success 2, failure 1
}
