// Package benchsup carries the source of benchsup's worker (and of the
// packages it links: protocol, sources, measure) inside every benchsup
// binary, so that the supervisor can add the worker to any module's test
// binary without network access and without the module requiring benchsup.
//
// The commands and libraries live in the subdirectories: cmd/benchsup (the
// CLI), supervisor, sandbox, protocol, worker, sources, measure, report. This
// package holds no code beyond the embedded files.
package benchsup

import "embed"

// WorkerSource holds the .go files of the worker, protocol, sources and
// measure packages as they were when this binary was built. Those packages
// import only the standard library and each other, so a copy of them,
// placed by the go command's -overlay inside the measured module as a new
// package of that module, builds with the module's own build list: nothing
// is required, downloaded or upgraded (see the supervisor's package doc).
// The test files among them are embedded too and never copied.
//
//go:embed worker/*.go protocol/*.go sources/*.go measure/*.go
var WorkerSource embed.FS
