// Package supervisor plans and runs one benchsup run: it resolves packages
// as `go test` does, links benchsup's worker into each package's test binary
// without touching the user's tree, compiles each binary exactly once, and
// starts every child through package sandbox.
//
// # The measured build is go test's build
//
// Every go command runs where go test would run, with the user's
// environment and GOFLAGS, and the only flags benchsup adds to the compile
// are -overlay and -vet=off (go test's vet step runs before the build, as
// go vet on the package as written: vet.go). The overlay adds, without writing to disk, a
// generated entry-point file to each package's external test package
// (registering the test and benchmark functions of both test packages, and
// the test the child is started with; the internal test package stays as
// go test compiles it) and, when
// the test binary does not already link benchsup, a copy of the worker
// (packages worker, protocol, sources, measure, internal/hooks and
// internal/stats, embedded in the benchsup binary) as new packages of the
// package's own module, in a directory named for the source's hash. Those packages import only the
// standard library and carry a //go:build go1.22 line, so they add no
// module and compile at Go 1.22 whatever the module's go line, while the
// user's code keeps its own. Nothing raises a version: no -modfile, no
// requirement, no go.sum line. A test binary that links benchsup already
// (the module uses the measure API) gets that version's worker package.
// Each run records, per package, the go line, a hash of the modules the
// test binary links and the GODEBUG default for the plain build (go list)
// and for the measured one (go list with the overlay, checked against the
// binary's build information), and warns if they differ.
//
// # Phases
//
// A run is a sequence of phases with data between them:
//
//   - plan: the packages as go test resolves them, their Test and
//     Benchmark functions, the overlay, and the builds each package needs
//     (pkgPlan.builds: the working tree's first; a comparison adds others);
//   - build: every build once, in parallel, with the proof that it is go
//     test's build;
//   - discover and calibrate (benchmarks): a fresh child per package lists
//     every leaf and calibrates its N (docs/design.md#calibration); a
//     function or a leaf whose process dies there becomes one error row and
//     discovery resumes past it;
//   - schedule: interleave orders the processes (repetition k of every
//     identity before repetition k+1 of any), each identity with its build;
//   - execute: one child at a time for benchmarks; for tests, a child per
//     package, packages in parallel, and when a child dies the test it was
//     running is reported with the child's outcome and a new child runs
//     every test that has not finished (a child whose testing could not
//     write the run's test log, a full TMPDIR, charges no test: the
//     package's row is parent-io, with testing's line);
//   - summarize: each identity's processes into its row (internal/stats).
//
// Starting a child is a field (startFunc), so the schedule and the
// collection of results are tested with scripted children.
//
// Every failure becomes a row of the returned rundoc.Document; Run returns an
// error only when nothing could run at all.
//
// What it deliberately does not do: render (package report), compute
// statistics beyond assembling them (package internal/stats), write
// anything into the user's module, or test packages whose files are in the
// module cache (the go command accepts no overlay there).
package supervisor
