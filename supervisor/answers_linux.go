package supervisor

import (
	"fmt"
	"io/fs"
	"syscall"
	"time"
)

// fileIdentity is what changes when a file is written, replaced, moved
// or has its mode changed, and its modification time: what a later write
// moves to the present, so that an identity recorded with an older one is
// never the identity of a later content (answerCutoff).
func fileIdentity(fi fs.FileInfo) (string, time.Time) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Sprintf("%d %o %d", fi.Size(), fi.Mode(), fi.ModTime().UnixNano()), time.Now() // never old enough to keep
	}
	mtime := time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec))
	ctime := time.Unix(int64(st.Ctim.Sec), int64(st.Ctim.Nsec))
	return fmt.Sprintf("%d %d %d %o %d %d", st.Dev, st.Ino, st.Size, st.Mode, mtime.UnixNano(), ctime.UnixNano()), mtime
}
