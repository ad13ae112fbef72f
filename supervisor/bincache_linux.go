package supervisor

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/host"
)

// The walk of a directory benchsup reuses between runs (docs/design.md#containment),
// as git's safe.directory refuses a repository another user owns: every
// directory from / down must belong to root or this user, since its owner
// can replace anything below it, and be writable by no one else, or any of
// them could; a sticky directory (/tmp) is allowed above benchsup's own,
// as there no one may remove or rename another's entries. The directories
// benchsup names itself (the cache and those in it) may not even be sticky
// and shared. Each element is opened with O_NOFOLLOW relative to the one
// before, so that what is checked is what is opened; a link above
// benchsup's own directories is followed only when root or this user owns
// it, and its target is walked from / again.

// maxLinks bounds the links a walk follows, as the kernel does (ELOOP).
const maxLinks = 40

// trustedOwner reports whether uid may own a directory benchsup reuses.
func trustedOwner(uid uint32) bool { return uid == 0 || int(uid) == os.Geteuid() }

// describeStat says what st is, for an UnsafePathError.
func describeStat(st *unix.Stat_t) string {
	kind := "a file"
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		kind = "a directory"
	case unix.S_IFLNK:
		kind = "a symbolic link"
	case unix.S_IFREG:
		kind = "a regular file"
		if st.Nlink != 1 {
			kind = fmt.Sprintf("a regular file with %d links", st.Nlink)
		}
	}
	return fmt.Sprintf("%s (owner uid %d, mode %04o)", kind, st.Uid, st.Mode&0o7777)
}

// checkWalked checks the directory st, named path, that a walk opened:
// mine says it is one benchsup names (its own), which it also makes 0700
// when this user owns it (a cache an older benchsup made 0755).
func checkWalked(fd int, path string, st *unix.Stat_t, mine bool) error {
	unsafe := func(rule string) error { return &host.UnsafePathError{Path: path, Found: describeStat(st), Rule: rule} }
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFDIR:
		return unsafe("it must be a directory")
	case !trustedOwner(st.Uid):
		return unsafe(fmt.Sprintf("a directory benchsup reuses between runs, and each above it, must be owned by root or by this user (uid %d): its owner can replace what is in it", os.Geteuid()))
	case st.Mode&0o022 != 0 && mine:
		return unsafe("benchsup's own directories must be writable by no other user")
	case st.Mode&0o022 != 0 && st.Mode&unix.S_ISVTX == 0:
		return unsafe("a directory above benchsup's that others can write must be sticky (like /tmp), or any of them can replace what is in it")
	}
	if mine && int(st.Uid) == os.Geteuid() && st.Mode&0o077 != 0 {
		if err := unix.Fchmod(fd, 0o700); err != nil {
			return &fs.PathError{Op: "chmod", Path: path, Err: err}
		}
	}
	return nil
}

// walkStep opens name in the directory dirfd (named dir) without
// following a link and checks it; a missing directory is made (0700) when
// create. A link is returned as its target when it may be followed (not
// mine, owned by root or this user), else refused.
func walkStep(dirfd int, dir, name string, mine, create bool) (fd int, link string, err error) {
	path := filepath.Join(dir, name)
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err = unix.Openat(dirfd, name, flags, 0)
	if err == unix.ENOENT && create {
		if err = unix.Mkdirat(dirfd, name, 0o700); err == nil || err == unix.EEXIST {
			fd, err = unix.Openat(dirfd, name, flags, 0)
		}
	}
	if err == unix.ELOOP || err == unix.ENOTDIR {
		var st unix.Stat_t
		if serr := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); serr != nil {
			return -1, "", &fs.PathError{Op: "lstat", Path: path, Err: serr}
		}
		if st.Mode&unix.S_IFMT != unix.S_IFLNK {
			return -1, "", &host.UnsafePathError{Path: path, Found: describeStat(&st), Rule: "it must be a directory"}
		}
		if mine {
			return -1, "", &host.UnsafePathError{Path: path, Found: describeStat(&st), Rule: "benchsup follows no link to its own directories"}
		}
		if !trustedOwner(st.Uid) {
			return -1, "", &host.UnsafePathError{Path: path, Found: describeStat(&st), Rule: "benchsup follows a link above its directories only when root or this user owns it"}
		}
		buf := make([]byte, unix.PathMax)
		n, rerr := unix.Readlinkat(dirfd, name, buf)
		if rerr != nil {
			return -1, "", &fs.PathError{Op: "readlink", Path: path, Err: rerr}
		}
		return -1, string(buf[:n]), nil
	}
	if err != nil {
		return -1, "", &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, "", &fs.PathError{Op: "fstat", Path: path, Err: err}
	}
	if err := checkWalked(fd, path, &st, mine); err != nil {
		unix.Close(fd)
		return -1, "", err
	}
	return fd, "", nil
}

// openTrusted walks the absolute path from / (see above) and holds the
// directory it names; its last own elements are benchsup's. Missing
// directories are made, 0700, when create; otherwise a missing one is an
// error wrapping fs.ErrNotExist.
func openTrusted(path string, own int, create bool) (*heldDir, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("%s is not an absolute path", path)
	}
	names := splitPath(path)
	if own < 1 || own > len(names) {
		return nil, fmt.Errorf("%s: benchsup cannot own /", path)
	}
	for links := 0; ; links++ {
		if links > maxLinks {
			return nil, &fs.PathError{Op: "walk", Path: path, Err: unix.ELOOP}
		}
		fd, err := unix.Open("/", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: "/", Err: err}
		}
		var st unix.Stat_t
		err = unix.Fstat(fd, &st)
		if err == nil {
			err = checkWalked(fd, "/", &st, false)
		}
		if err != nil {
			unix.Close(fd)
			return nil, err
		}
		walked, restart := "/", ""
		for i, name := range names {
			next, link, err := walkStep(fd, walked, name, i >= len(names)-own, create)
			unix.Close(fd)
			if err != nil {
				return nil, err
			}
			if next < 0 {
				// The target, walked again from /, then the rest: the
				// elements benchsup owns stay the last own ones.
				if !filepath.IsAbs(link) {
					link = filepath.Join(walked, link)
				}
				restart = filepath.Join(append([]string{link}, names[i+1:]...)...)
				break
			}
			fd, walked = next, filepath.Join(walked, name)
		}
		if restart == "" {
			return holdFd(fd, walked)
		}
		if names = splitPath(restart); own > len(names) {
			return nil, fmt.Errorf("%s: benchsup cannot own /", path)
		}
	}
}

func splitPath(path string) []string {
	var names []string
	for _, n := range strings.Split(filepath.Clean(path), "/") {
		if n != "" {
			names = append(names, n)
		}
	}
	return names
}

// holdFd makes the directory open as fd, named path, a heldDir: an
// os.Root of path, which must be that directory still (the same device and
// inode as fd, which is held meanwhile, so no other directory can take
// its inode).
func holdFd(fd int, path string) (*heldDir, error) {
	dir := os.NewFile(uintptr(fd), path)
	root, err := os.OpenRoot(path)
	if err != nil {
		dir.Close()
		return nil, err
	}
	a, aerr := dir.Stat()
	b, berr := root.Stat(".")
	if aerr != nil || berr != nil || !os.SameFile(a, b) {
		dir.Close()
		root.Close()
		return nil, fmt.Errorf("%s changed while benchsup opened it", path)
	}
	return &heldDir{path: path, dir: dir, root: root}, nil
}

// sub opens name in d, one of benchsup's own directories, as the walk
// opens them.
func (d *heldDir) sub(name string, create bool) (*heldDir, error) {
	fd, _, err := walkStep(int(d.dir.Fd()), d.path, name, true, create)
	if err != nil {
		return nil, err
	}
	return holdFd(fd, filepath.Join(d.path, name))
}

// holdPath holds the directory path, which this run made (its scratch
// directory's), not following a link at its last element.
func holdPath(path string) (*heldDir, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return holdFd(fd, path)
}

// openIn opens name in d for reading, never through a link.
func (d *heldDir) openIn(name string) (*os.File, error) {
	fd, err := unix.Openat(int(d.dir.Fd()), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: filepath.Join(d.path, name), Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(d.path, name)), nil
}

// createIn creates name in d, which must not exist, for writing.
func (d *heldDir) createIn(name string, perm os.FileMode) (*os.File, error) {
	fd, err := unix.Openat(int(d.dir.Fd()), name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, &fs.PathError{Op: "create", Path: filepath.Join(d.path, name), Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(d.path, name)), nil
}

// linkInto makes to/toName a hard link of the file name in d (not
// following a link there); across file systems it fails (EXDEV).
func (d *heldDir) linkInto(name string, to *heldDir, toName string) error {
	return unix.Linkat(int(d.dir.Fd()), name, int(to.dir.Fd()), toName, 0)
}

// ownedFile reports what is wrong with fi as a binary benchsup executes or
// keeps: anything but a regular file of this user; links is how many
// names it may have (0: any). Its mode is the caller's to set: in a
// directory of benchsup's, no other user reaches it.
func ownedFile(fi os.FileInfo, links uint64) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !ok:
		return errors.New("no owner to check")
	case !fi.Mode().IsRegular():
		return fmt.Errorf("not a regular file (%v)", fi.Mode().Type())
	case int(st.Uid) != os.Geteuid():
		return fmt.Errorf("owned by uid %d, not this user (uid %d)", st.Uid, os.Geteuid())
	case links != 0 && uint64(st.Nlink) != links:
		return fmt.Errorf("has %d links, want %d", st.Nlink, links)
	}
	return nil
}
