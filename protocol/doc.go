// Package protocol is the wire between the benchsup supervisor and one child
// process: length-prefixed msgpack frames carrying typed messages, a versioned
// handshake, published bounds, and strict validation of everything a child
// sends.
//
// # Framing
//
// Every frame is a 4-byte big-endian payload length L (1 <= L <= MaxFrameSize)
// followed by L payload bytes. The first payload byte is the message Kind; the
// rest is one msgpack map encoding the message struct (field names are the
// msgpack tags). Unknown map keys are ignored, so a newer peer may add optional
// fields without a version bump; removing or retyping a field bumps Version.
//
// # Exchange
//
// The endpoint is one stream socket (a socketpair end) that the child inherits
// as the descriptor named by the environment variable EnvFD. The exchange for
// one child, in the order it happens:
//
//	supervisor                                   child (worker)
//	    |  spawn, endpoint inherited as fd $BENCHSUP_PROTOCOL_FD
//	    | <----------------------------------- Hello{version, pid, Go, GOOS/GOARCH}
//	    |  (startup deadline ends; version checked)
//	    | Request{mode, identity, config, repetition, seed} ---------------->
//	    | <----------------------------------- Ready{identity}
//	    | <----------------------------------- Progress / Log          (any number)
//	    | <----------------------------------- Listing                 (discover mode)
//	    | <----------------------------------- TestEvent               (test mode)
//	    | <----------------------------------- Result                  (benchmark)
//	    | <----------------------------------- Window                  (workload, one per window)
//	    | <----------------------------------- Skip | Failure          (at most one)
//	    | <----------------------------------- Log                     (any number)
//	    | <----------------------------------- Done
//	    |  child exits 0; supervisor reaps it
//
// A Checker on the supervisor side enforces that order and the consistency of
// every message with the Request (identity, repetition, seed, sample counts).
//
// # Bounds and failure
//
// Every length a child controls is bounded by an exported Max* constant. The
// decoder reads at most MaxFrameSize bytes per frame into a reused buffer,
// verifies the msgpack structure (every declared length backed by bytes that
// are present, nesting at most maxDepth) before any typed decoding, and
// validates every string and slice against its bound afterwards. Any byte
// sequence yields either a message or an error wrapping ErrMalformed; it never
// panics and never allocates beyond those bounds.
//
// # What it deliberately does not do
//
// It does not own processes, deadlines or descriptors (package sandbox does),
// it does not interpret measurements (package measure does), and it does not
// retry, buffer across frames or reorder messages. A Conn is not safe for
// concurrent Receive calls; Send is safe for concurrent use.
package protocol
