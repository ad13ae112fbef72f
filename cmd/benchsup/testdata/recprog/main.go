// Command recprog is the program of the live view's terminal test: it
// records spans of about 2 ms under the identity "job" and writes lines,
// and a partial line, on both its output streams while it does.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/benchsup/benchsup/record"
)

func main() {
	rec := record.New(record.Config{})
	job := rec.Register("job")
	rec.Start()
	defer rec.Stop()
	fmt.Println("recprog: started")
	for i := 0; ; i++ {
		s := job.Begin()
		time.Sleep(2 * time.Millisecond)
		s.Finish(record.Success)
		switch i {
		case 300:
			fmt.Fprintln(os.Stderr, "recprog: 300 jobs")
		case 600:
			fmt.Print("recprog: partial ")
		case 700:
			fmt.Println("line ended")
		}
	}
}
