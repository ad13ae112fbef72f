package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchsup/benchsup/host"
	"github.com/benchsup/benchsup/sandbox"
)

// An outputFile is a file the command writes when the run is over. It is
// opened before the run starts, so that a path that cannot be written
// fails in a second rather than after an hour of measurement: a regular
// file (or a path that does not exist yet) by creating the temporary file
// that will replace it, in the same directory; anything else (a device, a
// pipe) by opening it for writing. A regular file is replaced atomically
// (written, synced, renamed over the old one), so a failure leaves the old
// file as it was and a reader never sees half a document. In a directory
// other users can write (/tmp), no link or file of another user is
// followed or written over (host.ResolveShared): refused in one line.
type outputFile struct {
	flag   string // the flag that named it, for messages
	path   string // as given
	target string // what is replaced: path with symbolic links resolved
	mode   fs.FileMode
	tmp    *os.File // the replacement, in target's directory; nil when direct
	direct *os.File // a file that is not regular, written in place
	forget func()   // ends the reaper's registration of tmp
	done   bool     // committed or aborted
}

// createOutput prepares path for writing at the end of the run, or says in
// one line why it cannot be written. An empty path is no file (nil).
// resolveOutput decides where an output path is written. asIs: it names,
// or links to, a descriptor's file (/dev/stdout, /proc/self/fd/N), written
// in place through path; /dev/shm is shared, so another user's entry there
// is refused. Otherwise target is what a link at path points to, but no
// link or file of another user in a directory others can write (/tmp) is
// followed (host.ResolveShared).
func resolveOutput(path string) (target string, asIs bool, err error) {
	if abs, err := filepath.Abs(path); err == nil && descriptorPath(abs) {
		return path, true, host.CheckSharedPath(path)
	}
	if target, err = host.ResolveShared(path); err != nil {
		return "", false, err
	}
	return target, descriptorPath(target), nil
}

func createOutput(flag, path string) (*outputFile, error) {
	if path == "" {
		return nil, nil
	}
	o := &outputFile{flag: flag, path: path, target: path, mode: 0o644, forget: func() {}}
	fail := func(err error) (*outputFile, error) {
		return nil, fmt.Errorf("%s %s: cannot write there: %w", flag, path, err)
	}
	// /dev/stdout, /proc/self/fd/N and the like (or a link to one) name a
	// descriptor's file, which a rename would not reach: write it in
	// place, at its end if it is a regular file (stdout redirected to a
	// file, where the table goes too).
	target, asIs, err := resolveOutput(path)
	if err != nil {
		return fail(err)
	}
	if asIs {
		fi, err := os.Stat(path)
		if err != nil {
			return fail(err)
		}
		return o.openDirect(fi, fail)
	}
	o.target = target
	fi, err := os.Lstat(target)
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fail(err)
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return fail(errors.New("a symbolic link appeared there while it was checked"))
	case err == nil && (fi.IsDir() || !fi.Mode().IsRegular()):
		return o.openDirect(fi, fail)
	case err == nil:
		o.mode = fi.Mode().Perm()
	}
	dir, base := filepath.Split(o.target)
	if dir == "" {
		dir = "."
	}
	if o.tmp, err = os.CreateTemp(dir, "."+base+".benchsup-*"); err != nil {
		return fail(err)
	}
	o.forget = sandbox.RemoveOnDeath(o.tmp.Name())
	return o, nil
}

// openDirect opens o.target, which exists, to be written in place.
func (o *outputFile) openDirect(fi fs.FileInfo, fail func(error) (*outputFile, error)) (*outputFile, error) {
	flags := os.O_WRONLY
	switch {
	case fi.IsDir():
		return fail(errors.New("it is a directory"))
	case fi.Mode()&fs.ModeNamedPipe != 0:
		flags |= nonblockFlag // a FIFO nobody reads fails now instead of hanging
	case fi.Mode().IsRegular():
		flags |= os.O_APPEND
	}
	// A resolved target is opened without following a link planted since
	// it was checked, and checked again once open; a descriptor's path
	// (o.target is o.path) is meant to be followed.
	resolved := !descriptorPath(o.target)
	if resolved {
		flags |= nofollowFlag
	}
	var err error
	if o.direct, err = os.OpenFile(o.target, flags, 0); err != nil {
		return fail(err)
	}
	if resolved {
		if err := host.CheckOpened(o.direct, o.target); err != nil {
			o.direct.Close()
			return fail(err)
		}
	}
	return o, nil
}

// descriptorPath reports whether the absolute path abs is under /dev or
// /proc, where a name may be a descriptor's magic link (/dev/stdout,
// /proc/self/fd/1) that only the kernel resolves.
func descriptorPath(abs string) bool {
	return strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/")
}

// commit writes the file with write and puts it in place. On failure the
// file named by the flag is as it was before the run (unless it is not a
// regular file), and the error says what was not written.
func (o *outputFile) commit(write func(io.Writer) error) (err error) {
	if o == nil || o.done {
		return nil
	}
	o.done = true
	defer func() {
		if err != nil {
			err = fmt.Errorf("%s: results not written to %s: %w", o.flag, o.path, err)
		}
	}()
	f := o.direct
	if f == nil {
		f = o.tmp
	}
	bw := bufio.NewWriter(f)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if o.direct != nil {
		if cerr := o.direct.Close(); err == nil {
			err = cerr
		}
		return err
	}
	if err == nil {
		err = o.tmp.Chmod(o.mode)
	}
	if err == nil {
		err = o.tmp.Sync()
	}
	if cerr := o.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.tmp.Name(), o.target)
	}
	if err != nil {
		os.Remove(o.tmp.Name())
	}
	o.forget()
	return err
}

// abort gives up the file: nothing is written, an existing file is kept.
func (o *outputFile) abort() {
	if o == nil || o.done {
		return
	}
	o.done = true
	if o.direct != nil {
		o.direct.Close()
		return
	}
	o.tmp.Close()
	os.Remove(o.tmp.Name())
	o.forget()
}

// checkCoverProfile refuses, as a usage error in one line, a
// -coverprofile the run could not write when it ends: checked before
// anything runs, as the supervisor will place it (relative to dir, as go
// test writes it; no other user's link or file followed in a directory
// others can write; a temporary file created beside it and renamed), so
// that a bad path fails now rather than after the tests, with no profile
// and a warning.
func checkCoverProfile(path, dir string) error {
	if path == "" {
		return nil
	}
	fail := func(err error) error { return usagef("-coverprofile %s: cannot write there: %v", path, err) }
	profile := path
	if !filepath.IsAbs(profile) {
		base, err := filepath.Abs(dir)
		if err != nil {
			return fail(err)
		}
		profile = filepath.Join(base, profile)
	}
	target, err := host.ResolveShared(profile)
	if err != nil {
		return fail(err)
	}
	if fi, err := os.Stat(target); err == nil && fi.IsDir() {
		return fail(errors.New("it is a directory"))
	}
	d, base := filepath.Split(target)
	tmp, err := os.CreateTemp(d, "."+base+".benchsup-*")
	if err != nil {
		return fail(err)
	}
	tmp.Close()
	os.Remove(tmp.Name())
	return nil
}
