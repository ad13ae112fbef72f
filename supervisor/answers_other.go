//go:build !linux

package supervisor

import (
	"fmt"
	"io/fs"
	"time"
)

// fileIdentity, off Linux, has no inode or change time to read: answers
// are never kept there (newAnswers), and benchsup runs no children there
// either.
func fileIdentity(fi fs.FileInfo) (string, time.Time) {
	return fmt.Sprintf("%d %o %d", fi.Size(), fi.Mode(), fi.ModTime().UnixNano()), time.Now()
}
