//go:build !unix

package rundoc

import "os"

// openNonblock is zero where an open cannot wait for a FIFO's writer.
const openNonblock = 0

func clearNonblock(*os.File) error { return nil }
