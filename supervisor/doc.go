// Package supervisor plans and runs one benchsup run: it resolves packages
// as `go test` does, links benchsup's worker into each package's test binary
// without touching the user's tree (a generated file through -overlay, and a
// temporary go.mod through -modfile when the module does not require
// benchsup), compiles each binary exactly once, and starts every child
// through package sandbox.
//
// In benchmark mode it discovers every leaf benchmark in a fresh child per
// package (a function that crashes during discovery becomes one error row and
// discovery resumes after it), then measures each leaf in Config.Repetitions
// fresh processes, one child at a time, interleaving repetitions across
// identities. In test mode it runs each package's tests in a child, packages
// in parallel; when a child dies, the test it was running is reported with
// the child's outcome and a new child runs every test that has not finished.
//
// Every failure becomes a row of the returned report.Document; Run returns an
// error only when nothing could run at all.
//
// What it deliberately does not do: render (package report), compute
// statistics beyond assembling them (package measure), or write anything into
// the user's module.
package supervisor
