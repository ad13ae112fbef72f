package report

import (
	"io"
	"os"
)

// TerminalWidth returns the width in columns of w when w is a terminal,
// and 0 otherwise (a pipe, a file, a buffer): the TableOptions.Width for
// output written to w. Piped output keeps its full width, so that what a
// script reads does not depend on the window it ran in.
func TerminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(f) {
		return 0
	}
	if cols, ok := terminalWidth(f); ok {
		return cols
	}
	return 0
}
