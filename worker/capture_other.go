//go:build !linux

package worker

import "os"

// capturePipe is the pipe os.Stdout points into while the worker reads
// testing's output (captureOutput). Elsewhere than on Linux it is an
// os.Pipe read through the runtime's poller, and idle is called before
// every read (which may wait): forwarded output then goes in writes as
// large as the reads.
type capturePipe struct {
	r    *os.File
	idle func()
}

func newCapturePipe() (*capturePipe, *os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	return &capturePipe{r: r}, w, nil
}

func (p *capturePipe) Read(b []byte) (int, error) {
	if p.idle != nil {
		p.idle()
	}
	return p.r.Read(b)
}

// stop ends the reading: closing the read end ends a Read in progress.
func (p *capturePipe) stop() { p.r.Close() }

func (p *capturePipe) close() { p.r.Close() }
