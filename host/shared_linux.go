//go:build linux

package host

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// A directory is shared when users other than its owner may write it
// (group or others): there, another user can plant an entry under the name
// benchsup is about to use (docs/design.md#host-claim-file-format).
func sharedMode(mode uint32) bool { return mode&0o022 != 0 }

// trustedOwner reports whether a file of uid may be followed or written
// in a shared directory: this user's own, or root's (a local root is not
// an attacker benchsup can defend against).
func trustedOwner(uid uint32) bool { return uid == 0 || int(uid) == os.Geteuid() }

// describeStat names what st is, for an UnsafePathError: "a symbolic link
// (owner uid 65534, mode 0777)".
func describeStat(st *unix.Stat_t) string {
	var kind string
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		kind = "a regular file"
		if st.Nlink != 1 {
			kind = fmt.Sprintf("a regular file with %d links (a hard link to a file elsewhere)", st.Nlink)
		}
	case unix.S_IFLNK:
		kind = "a symbolic link"
	case unix.S_IFDIR:
		kind = "a directory"
	case unix.S_IFIFO:
		kind = "a named pipe (FIFO)"
	case unix.S_IFCHR:
		kind = fmt.Sprintf("a character device (%d,%d)", unix.Major(st.Rdev), unix.Minor(st.Rdev))
	case unix.S_IFBLK:
		kind = fmt.Sprintf("a block device (%d,%d)", unix.Major(st.Rdev), unix.Minor(st.Rdev))
	case unix.S_IFSOCK:
		kind = "a socket"
	default:
		kind = fmt.Sprintf("a file of type %#o", st.Mode&unix.S_IFMT)
	}
	return fmt.Sprintf("%s (owner uid %d, mode %04o)", kind, st.Uid, st.Mode&0o7777)
}

// checkSharedDir checks the directory open as fd, named path, for use as a
// place other users share: owned by root or this user, and, when others
// may write it, sticky, so that none can remove or replace another's
// entries.
func checkSharedDir(fd int, path string) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return &UnsafePathError{Path: path, Found: describeStat(&st), Rule: "it must be a directory"}
	}
	if !trustedOwner(st.Uid) {
		return &UnsafePathError{Path: path, Found: describeStat(&st), Rule: fmt.Sprintf("a directory benchsup shares must be owned by root or by this user (uid %d): its owner can replace any entry in it", os.Geteuid())}
	}
	if sharedMode(st.Mode) && st.Mode&unix.S_ISVTX == 0 {
		return &UnsafePathError{Path: path, Found: describeStat(&st), Rule: "a directory others can write must be sticky (like /tmp, mode 01777), or any of them can replace the entries in it"}
	}
	return nil
}

// openDirNoFollow opens path as a directory, refusing a symbolic link at
// its last element with an *UnsafePathError that says what is there.
func openDirNoFollow(path string) (int, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == nil {
		return fd, nil
	}
	if err == unix.ELOOP || err == unix.ENOTDIR {
		var st unix.Stat_t
		if unix.Lstat(path, &st) == nil {
			return -1, &UnsafePathError{Path: path, Found: describeStat(&st), Rule: "it must be a directory, and benchsup follows no link there"}
		}
	}
	return -1, &fs.PathError{Op: "open", Path: path, Err: err}
}

// maxLinks bounds the symbolic links ResolveShared follows, as the
// kernel's own limit does (ELOOP after 40).
const maxLinks = 40

// ResolveShared resolves every symbolic link in path, element by element,
// and returns the absolute path it names, for a file benchsup is to
// create, replace or write there. It refuses, with an *UnsafePathError,
// a link in a directory other users can write (group or others) that
// belongs to another user than this one or root, and an existing
// non-directory at the end of path in such a directory that belongs to
// another user: benchsup neither follows another user's link there nor
// writes over another user's file. Elements that do not exist yet are
// kept as written. Checked at the time of the call: the caller opens the
// result without following links (O_NOFOLLOW, or a rename onto the name)
// and checks what it opened with CheckOpened.
func ResolveShared(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rest := strings.Split(abs, "/")
	resolved := "/"
	links := 0
	for len(rest) > 0 {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, name)
		var st unix.Stat_t
		if err := unix.Lstat(next, &st); err != nil {
			if err == unix.ENOENT {
				// Nothing there yet: what is created is created by name.
				return filepath.Join(append([]string{next}, rest...)...), nil
			}
			return "", &fs.PathError{Op: "lstat", Path: next, Err: err}
		}
		isLink := st.Mode&unix.S_IFMT == unix.S_IFLNK
		last := !isLink && !slicesHasPath(rest)
		if isLink || (last && st.Mode&unix.S_IFMT != unix.S_IFDIR) {
			if err := checkSharedEntry(resolved, next, &st, isLink); err != nil {
				return "", err
			}
		}
		if !isLink {
			resolved = next
			continue
		}
		if links++; links > maxLinks {
			return "", &fs.PathError{Op: "resolve", Path: path, Err: unix.ELOOP}
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		rest = append(strings.Split(target, "/"), rest...)
	}
	return resolved, nil
}

// slicesHasPath reports whether rest still names an element.
func slicesHasPath(rest []string) bool {
	for _, r := range rest {
		if r != "" && r != "." {
			return true
		}
	}
	return false
}

// checkSharedEntry refuses the entry st, named path, in the directory dir
// when dir is shared and st belongs to another user than this one or root.
func checkSharedEntry(dir, path string, st *unix.Stat_t, isLink bool) error {
	if trustedOwner(st.Uid) {
		return nil
	}
	var dst unix.Stat_t
	if err := unix.Stat(dir, &dst); err != nil {
		return &fs.PathError{Op: "stat", Path: dir, Err: err}
	}
	if !sharedMode(dst.Mode) {
		return nil
	}
	refusal := "writes over no other user's file"
	if isLink {
		refusal = "follows no other user's link"
	}
	rule := fmt.Sprintf("%s is a directory other users can write (mode %04o), and benchsup %s there", dir, dst.Mode&0o7777, refusal)
	return &UnsafePathError{Path: path, Found: describeStat(st), Rule: rule}
}

// CheckOpened checks the file f, just opened at path (as ResolveShared
// returned it, without following a link): in a directory other users can
// write, it must belong to this user or root. It closes the gap between
// ResolveShared and the open, in which another user may have planted a
// file at a name that did not exist. A file it refuses has not been
// written by benchsup: the caller truncates only after this check.
func CheckOpened(f *os.File, path string) error {
	var st unix.Stat_t
	if err := onFD(f, func(fd int) error { return unix.Fstat(fd, &st) }); err != nil {
		return &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	return checkSharedEntry(filepath.Dir(path), path, &st, false)
}

// onFD runs op on f's descriptor and returns its error, leaving the
// descriptor's mode (blocking or not) as it is, which f.Fd would not.
func onFD(f *os.File, op func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var opErr error
	if err := rc.Control(func(fd uintptr) { opErr = op(int(fd)) }); err != nil {
		return err
	}
	return opErr
}

// CheckSharedPath refuses path, as given, when its last element is a link
// or file of another user than this one or root in a directory other users
// can write; for names such as /dev/shm/out.json that are opened as they
// are, not resolved (device and /proc paths).
func CheckSharedPath(path string) error {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return nil // nothing there: the open says why, or creates it
	}
	isLink := st.Mode&unix.S_IFMT == unix.S_IFLNK
	if !isLink && st.Mode&unix.S_IFMT == unix.S_IFDIR {
		return nil
	}
	return checkSharedEntry(filepath.Dir(path), path, &st, isLink)
}
