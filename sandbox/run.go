package sandbox

import (
	"context"

	"github.com/benchsup/benchsup/protocol"
	"github.com/benchsup/benchsup/protocol/msgpackcodec"
)

// Run starts a child, reads its Hello, sends req, passes every message
// (Hello included) to observe until the end of the stream or an error (past
// Done too: a Hello with Again starts the Request's next series),
// and returns Wait's Outcome. observe may be nil. A Config or a Request that
// cannot be used (a Request beyond the protocol's bounds) yields
// ClassInvalidConfig without spawning anything.
func Run(cfg Config, req protocol.Request, observe func(protocol.Message)) Outcome {
	return RunContext(context.Background(), cfg, req, observe)
}

// RunContext is Run with a context: when ctx is done before the child exits,
// the child is terminated (SIGTERM, Grace, SIGKILL) and classified
// ClassCanceled.
func RunContext(ctx context.Context, cfg Config, req protocol.Request, observe func(protocol.Message)) Outcome {
	return RunWatched(ctx, cfg, req, observe, nil)
}

// RunWatched is RunContext that also passes the child, once spawned and
// before its Hello, to started (when not nil), so that the caller can read
// its Usage while it runs. started must not call Hello, Send, Receive or
// Wait.
func RunWatched(ctx context.Context, cfg Config, req protocol.Request, observe func(protocol.Message), started func(*Child)) Outcome {
	if _, err := msgpackcodec.AppendFrame(nil, req); err != nil {
		return startFailure(&cfg, &ConfigError{Field: "Request", Reason: err.Error()})
	}
	c, err := StartContext(ctx, cfg)
	if err != nil {
		return startFailure(&cfg, err)
	}
	if started != nil {
		started(c)
	}
	if observe == nil {
		observe = func(protocol.Message) {}
	}
	// Any error below is recorded by the Child where it matters for the
	// classification; Wait reports it.
	if h, err := c.Hello(); err == nil {
		observe(h)
		if c.Send(req) == nil {
			for {
				m, err := c.Receive()
				if err != nil {
					break
				}
				// Past a Done the stream is read to its end: a TestMain
				// that calls m.Run again makes the worker serve the
				// Request again (protocol.Hello.Again), and its messages
				// must be read as they come, not left to fill the socket.
				observe(m)
			}
		}
	}
	return c.Wait()
}

// RunProgram runs cfg as a plain program (Config.Program is set for it):
// no handshake, the total deadline the only one, and returns Wait's
// Outcome. When ctx is done before the program exits, it is terminated
// (SIGTERM, Grace, SIGKILL) and classified ClassCanceled; the caller that
// ended it on purpose (benchsup record --for) knows so by the context's
// cause.
func RunProgram(ctx context.Context, cfg Config) Outcome {
	return RunProgramWatched(ctx, cfg, nil)
}

// RunProgramWatched is RunProgram that also passes the program's child,
// once spawned, to started (when not nil), so that the caller can read its
// Usage while it runs (the live view of benchsup record). started must not
// call Wait.
func RunProgramWatched(ctx context.Context, cfg Config, started func(*Child)) Outcome {
	cfg.Program = true
	c, err := StartContext(ctx, cfg)
	if err != nil {
		return startFailure(&cfg, err)
	}
	if started != nil {
		started(c)
	}
	return c.Wait()
}
