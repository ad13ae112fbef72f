package report

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTerminal reports whether f is a terminal: whether it has terminal
// attributes. It goes through SyscallConn rather than f.Fd, which would put
// the file into blocking mode.
func isTerminal(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	var ioctlErr error
	if err := rc.Control(func(fd uintptr) {
		_, ioctlErr = unix.IoctlGetTermios(int(fd), unix.TCGETS)
	}); err != nil {
		return false
	}
	return ioctlErr == nil
}

// terminalWidth returns the number of columns of the terminal f; false
// when f is not a terminal or reports no width.
func terminalWidth(f *os.File) (int, bool) {
	cols, _, ok := terminalSize(f)
	return cols, ok
}

// terminalSize returns the columns and rows of the terminal f; false when
// f is not a terminal or reports no width.
func terminalSize(f *os.File) (cols, rows int, ok bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, 0, false
	}
	var ws *unix.Winsize
	var ioctlErr error
	if err := rc.Control(func(fd uintptr) {
		ws, ioctlErr = unix.IoctlGetWinsize(int(fd), unix.TIOCGWINSZ)
	}); err != nil || ioctlErr != nil || ws.Col == 0 {
		return 0, 0, false
	}
	return int(ws.Col), int(ws.Row), true
}
