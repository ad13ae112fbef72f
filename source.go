// Package benchsup carries the source of benchsup's worker (and of the
// packages it links: protocol, sources, internal/hooks, internal/stats)
// inside every benchsup binary,
// so that the supervisor can add the worker to any module's test binary
// without network access and without the module requiring benchsup.
//
// The commands and libraries live in the subdirectories: cmd/benchsup (the
// CLI), supervisor, sandbox, protocol, worker, sources, measure (the one
// package benchmark authors import), report, and under internal/ what only
// benchsup's own packages use. This package holds no code beyond the
// embedded files.
package benchsup

import "embed"

// WorkerSource holds the .go files of the worker, protocol, sources,
// internal/hooks and internal/stats packages as they were when this binary
// was built: the worker and every benchsup package it imports, and nothing
// else. (measure is not among them: a test binary that does not import it
// does not link it, and one that does links its module's own benchsup.) Those packages import only
// the standard library and each other, so a copy of them, placed by the go
// command's -overlay inside the measured module as a new package of that
// module, builds with the module's own build list: nothing is required,
// downloaded or upgraded (see the supervisor's package doc). The copies
// keep their relative layout under one directory, so the copied internal/
// packages stay importable by the copied worker, and by nothing else of
// that module. The test files among them are embedded too and
// never copied.
//
//go:embed worker/*.go protocol/*.go sources/*.go internal/hooks/*.go internal/stats/*.go
var WorkerSource embed.FS
