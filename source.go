// Package benchsup carries the source of benchsup's worker (and of the
// packages it links: protocol, sources, measure) inside every benchsup
// binary, so that the supervisor can link the worker into any module's test
// binary without network access and without the module having to require
// benchsup.
//
// The commands and libraries live in the subdirectories: cmd/benchsup (the
// CLI), supervisor, sandbox, protocol, worker, sources, measure, report. This
// package holds no code beyond the embedded files.
package benchsup

import "embed"

// WorkerSource holds the .go files of the worker, protocol, sources and
// measure packages as they were when this binary was built, with worker.mod
// and worker.sum: the go.mod and go.sum of a module holding only those
// packages.
// That module declares go 1.21 and requires only the msgpack codec and an
// old golang.org/x/sys (v0.15.0, for perf_event_open), because everything it
// requires joins the measured module's build list, where the newer of the
// user's and the worker's versions wins.
//
//go:embed worker.mod worker.sum worker/*.go protocol/*.go sources/*.go measure/*.go
var WorkerSource embed.FS
