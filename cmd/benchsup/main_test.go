package main

import (
	"os"
	"testing"

	"github.com/benchsup/benchsup/sandbox"
)

func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == sandbox.ReaperArg {
		// The reaper a run started in these tests is this binary, as it is
		// benchsup's in real runs.
		os.Exit(sandbox.ReaperMain(os.Stdin))
	}
	os.Exit(m.Run())
}
