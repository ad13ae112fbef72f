package rundoc

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular: a document's path names something other than a regular
// file (a FIFO, a device, a directory, a socket). Reading one could block
// forever (a FIFO nobody writes) or never end (a device), so it is refused
// before anything is read.
var ErrNotRegular = errors.New("not a regular file")

// ReadDocumentFile reads the run document at path as ReadDocument reads
// one, from a regular file only: path is opened without waiting for a
// writer (O_NONBLOCK, so a FIFO cannot block the open), the open file is
// checked (fstat, so nothing can be swapped in between a check and the
// open), and anything but a regular file is refused with ErrNotRegular,
// as is one larger than MaxDocumentSize with ErrTooLarge, before a byte
// is read. Errors name path.
func ReadDocumentFile(path string) (*Document, Integrity, error) {
	return readFile(path, ReadDocument)
}

// ReadComparisonFile reads the comparison document at path as
// ReadComparison reads one, from a regular file only, as ReadDocumentFile.
func ReadComparisonFile(path string) (*Comparison, Integrity, error) {
	return readFile(path, ReadComparison)
}

func readFile[T any](path string, read func(io.Reader) (*T, Integrity, error)) (*T, Integrity, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, Integrity{}, err
	}
	defer f.Close()
	v, integrity, err := read(f)
	if err != nil {
		return nil, Integrity{}, fmt.Errorf("%s: %w", path, err)
	}
	return v, integrity, nil
}

// openRegular opens path for reading if it is a regular file of at most
// MaxDocumentSize bytes.
func openRegular(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkRegular(path, fi)
	}
	if err == nil {
		// Back to blocking reads; a regular file ignores the flag, but a
		// descriptor benchsup reads should not carry it.
		err = clearNonblock(f)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkRegular refuses, naming path, a file that is not regular or is
// larger than MaxDocumentSize.
func checkRegular(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w (%s); benchsup reads documents from regular files", path, ErrNotRegular, fileKind(fi.Mode()))
	}
	if fi.Size() > MaxDocumentSize {
		return fmt.Errorf("%s: %w: %d bytes, larger than %d", path, ErrTooLarge, fi.Size(), int64(MaxDocumentSize))
	}
	return nil
}

// fileKind names a file type that is not regular.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.Type().String()
}
