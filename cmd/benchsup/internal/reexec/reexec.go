// Package reexec makes a benchsup binary that the sandbox re-executed
// (/proc/self/exe) a child's shim or a run's reaper, from an init function,
// before the rest of the program is initialized.
//
// A shim starts under every child, so its start is part of what each child
// costs. Go initializes packages in import-path order, each after its
// imports; this package imports only the sandbox, so its init runs before
// the CLI's own packages and their dependencies (the urfave/cli and
// markdown packages, the report's templates, net/http), and a shim never
// pays for their initialization (docs/design.md#the-shim has what that
// saves). It does nothing when the first argument is anything else.
//
// Import it for its effect, from package main only.
package reexec

import (
	"os"

	"github.com/benchsup/benchsup/sandbox"
)

func init() {
	switch {
	case len(os.Args) == 2 && os.Args[1] == sandbox.ReaperArg:
		// A run's reaper (supervisor.Config.Shim, sandbox.StartReaper).
		os.Exit(sandbox.ReaperMain(os.Stdin))
	case len(os.Args) >= 2 && os.Args[1] == sandbox.ShimArg:
		// A child's shim, its parent (supervisor.Config.Shim).
		os.Exit(sandbox.ShimMain(os.Args[2:]))
	}
}
