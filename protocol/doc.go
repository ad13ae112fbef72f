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
//	    | <----------------------------------- Hello{again: 2}        (TestMain's m.Run again: optional,
//	    | <----------------------------------- Ready ... Done          the same Request served again)
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
// panics and never allocates beyond those bounds. The error is a
// *MalformedError; a refusal of one value names it by its field path and its
// byte offset within the payload ("result.samples[0].ns ... at payload offset
// 17"). Decoding is strict: a known key repeated in one map, a struct encoded
// as an array and an integer that does not fit its field are refused, not
// resolved by last-one-wins, reordering or wrapping.
//
// # Codecs and dependencies
//
// This package imports the standard library only, and its non-test code
// builds with Go 1.22. It is linked into users' test binaries: the worker
// that speaks the child's side is copied into the user's module as an
// injected package, and must add nothing to that module's build list nor
// require a newer Go than the user's. So the msgpack bodies are encoded and
// decoded by StdCodec, hand-written per message type and byte-identical to
// what github.com/vmihailenco/msgpack/v5 produces for the message structs
// with UseCompactInts(true). NewConn, AppendFrame and DecodePayload use it.
//
// The supervisor decodes with package protocol/msgpackcodec instead, which
// implements the same Codec interface with that library. It is kept as an
// independent check on StdCodec: the two are tested and fuzzed against each
// other (identical bytes, each decoding the other's frames), and in
// production each decodes only what the other encoded. They accept exactly
// the same bodies and refuse the rest with the same error. Both share this
// package's framing, walk, bounds and validation (AppendFrameWith,
// DecodePayloadWith, NewConnWith), so every guarantee above holds whichever
// codec a Conn uses.
//
// # What it deliberately does not do
//
// It does not own processes, deadlines or descriptors (package sandbox does),
// it does not interpret measurements (package measure does), and it does not
// retry, buffer across frames or reorder messages. A Conn is not safe for
// concurrent Receive calls; Send is safe for concurrent use. It has no
// reflective or general-purpose msgpack support: StdCodec knows exactly the
// message types declared here.
package protocol
