//go:build linux

package host

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/rundoc"
	"github.com/benchsup/benchsup/sandbox"
)

// systemClaimDir is shared by every user of the host on a usual Linux
// system: /run/lock is a world-writable sticky tmpfs.
const systemClaimDir = "/run/lock/benchsup"

// DefaultClaimDir is $BENCHSUP_CLAIM_DIR when set, else /run/lock/benchsup
// when it exists (in any form: Claim then checks it, and refuses an unsafe
// one rather than falling back silently to a directory other runs do not
// use) or can be created, else benchsup-claim under os.TempDir(). Two runs
// coordinate only if they resolve to the same directory.
func DefaultClaimDir() string {
	if d := os.Getenv(ClaimDirEnv); d != "" {
		return d
	}
	if _, err := os.Lstat(systemClaimDir); err == nil || ensureClaimDir(systemClaimDir) == nil {
		return systemClaimDir
	}
	return filepath.Join(os.TempDir(), "benchsup-claim")
}

// ensureClaimDir makes dir a claim directory, or says why it cannot be one
// (see openClaimDir).
func ensureClaimDir(dir string) error {
	fd, err := openClaimDir(dir)
	if err == nil {
		unix.Close(fd)
	}
	return err
}

// openClaimDir makes dir a directory every user can add lock files to,
// created 01777 (sticky, like /tmp, so a user cannot remove another's
// files), and returns a descriptor of it that the lock files are opened
// relative to, so that the directory checked is the one used even if its
// name is replaced meanwhile. dir must be a directory, not a link to one,
// owned by root or this user, sticky if others may write it
// (checkSharedDir), and writable by us; an unsafe one is refused with an
// *UnsafePathError.
func openClaimDir(dir string) (int, error) {
	created := false
	if err := os.Mkdir(dir, 0o777); err == nil {
		created = true
	} else if !errors.Is(err, fs.ErrExist) {
		return -1, fmt.Errorf("host claim directory: %w", err)
	}
	fd, err := openDirNoFollow(dir)
	if err != nil {
		return -1, fmt.Errorf("host claim directory: %w", err)
	}
	fail := func(err error) (int, error) {
		unix.Close(fd)
		return -1, fmt.Errorf("host claim directory: %w", err)
	}
	if created {
		// Mkdir's mode passes through the umask; the sticky bit does not.
		// Only a directory that is ours: the name may have been replaced
		// between the mkdir and the open.
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return fail(err)
		}
		if int(st.Uid) == os.Geteuid() {
			if err := unix.Fchmod(fd, 0o777|unix.S_ISVTX); err != nil {
				return fail(err)
			}
		}
	}
	if err := checkSharedDir(fd, dir); err != nil {
		return fail(err)
	}
	if err := unix.Faccessat(fd, ".", unix.W_OK|unix.X_OK, 0); err != nil {
		return fail(fmt.Errorf("%s: not writable: %w", dir, err))
	}
	return fd, nil
}

// Claim takes the CPUs cfg names (every online CPU when none) for this
// process: it locks cpuN.lock in cfg.Dir for each, in ascending order, and
// writes its owner record into each. When another run holds any of them it
// lets go of all it took (so two runs never hold parts of each other's sets
// while waiting), calls waiting with the holder each time the holder
// changes, and tries again every cfg.Poll, idle in between, until
// cfg.Timeout: then the error is a *ClaimTimeoutError naming the holder.
//
// A lock dies with the process (or the last process) holding its
// descriptor, so an owner that crashed never blocks; the record it left is
// reported in the report's Notes.
func Claim(ctx context.Context, cfg ClaimConfig, waiting func(Holder)) (*HostClaim, error) {
	cfg = cfg.withDefaults()
	var cpus []int
	machineWide := cfg.CPUs == nil
	if machineWide {
		online, err := OnlineCPUs()
		if err != nil {
			return nil, fmt.Errorf("host claim: %w", err)
		}
		cpus = online
	} else {
		for _, c := range cfg.CPUs {
			if c < 0 {
				return nil, fmt.Errorf("host claim: %w: CPU %d", ErrCPUList, c)
			}
		}
		cpus = slices.Compact(slices.Sorted(slices.Values(cfg.CPUs)))
		if len(cpus) == 0 {
			return nil, fmt.Errorf("host claim: %w: no CPUs", ErrCPUList)
		}
	}
	dir := cfg.Dir
	if dir == "" {
		dir = DefaultClaimDir()
	}
	dirFD, err := openClaimDir(dir)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dirFD) // the lock files stay open on their own
	c := &HostClaim{report: rundoc.HostClaim{Dir: dir, CPUs: FormatCPUList(cpus), MachineWide: machineWide}}
	start := time.Now()
	var last *Holder
	for {
		files, holder, err := lockAll(dirFD, dir, cpus)
		if err != nil {
			return nil, err
		}
		if holder == nil {
			c.files = files
			break
		}
		if last == nil || !last.same(*holder) {
			c.report.WaitedFor = append(c.report.WaitedFor, holder.String())
			if waiting != nil {
				waiting(*holder)
			}
		}
		last = holder
		waited := time.Since(start)
		if cfg.Timeout < 0 || waited >= cfg.Timeout {
			return nil, &ClaimTimeoutError{Holder: *holder, Waited: waited}
		}
		t := time.NewTimer(min(cfg.Poll, cfg.Timeout-waited))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("host claim: %w", context.Cause(ctx))
		case <-t.C:
		}
	}
	if last != nil {
		// Only time spent waiting for a holder; taking free locks is not
		// a wait, so a run that found none held records 0.
		c.report.WaitedNs = int64(time.Since(start))
	}
	if err := c.writeRecords(cfg.Command); err != nil {
		c.Release()
		return nil, err
	}
	return c, nil
}

// lockAll locks every CPU's file in the directory open as dirFD (named
// dir), or none: when one is held it closes what it took and describes
// that one's holder.
func lockAll(dirFD int, dir string, cpus []int) ([]*os.File, *Holder, error) {
	files := make([]*os.File, 0, len(cpus))
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, cpu := range cpus {
		name := "cpu" + strconv.Itoa(cpu) + ".lock"
		path := filepath.Join(dir, name)
		f, err := openLockFile(dirFD, dir, name)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			closeAll()
			return nil, nil, fmt.Errorf("host claim: flock %s: %w", path, err)
		}
		if held {
			h := describeHolder(f, cpu, path)
			f.Close()
			closeAll()
			return nil, &h, nil
		}
		files = append(files, f)
	}
	return files, nil, nil
}

// lockFileShape reports whether st is what a lock file may be: a regular
// file with one link.
func lockFileShape(st *unix.Stat_t) bool {
	return st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink == 1
}

// lockOpenFlags open a lock file without following a link planted under
// its name, without blocking on a planted FIFO, and without passing it to
// children.
const lockOpenFlags = unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC

// openLockFile opens the lock file name in the directory open as dirFD
// (named dir) for writing the record, creating it readable and writable
// by all. The directory is one other users can write, so what is there
// may have been planted: anything but a regular file with one link (a
// symbolic link, a hard link to a file elsewhere, a FIFO, a device, a
// directory) is refused with an *UnsafePathError, looked at (fstatat)
// before it is opened, so that no device is ever opened, and checked again
// on the descriptor after (it is that one that is written). It never
// truncates on open, and never opens an existing file with O_CREAT: in a
// sticky world-writable directory, fs.protected_regular refuses that for
// another user's file. A file we may not write is opened read-only, which
// is enough to lock it.
func openLockFile(dirFD int, dir, name string) (*os.File, error) {
	path := filepath.Join(dir, name)
	unsafe := func(st *unix.Stat_t) error {
		return fmt.Errorf("host claim: %w", &UnsafePathError{Path: path, Found: describeStat(st), Rule: "a lock file must be a regular file with one link, and benchsup follows, truncates or writes nothing else there"})
	}
	fail := func(op string, err error) error {
		return fmt.Errorf("host claim: %w", &fs.PathError{Op: op, Path: path, Err: err})
	}
	for range 3 {
		var before unix.Stat_t
		err := unix.Fstatat(dirFD, name, &before, unix.AT_SYMLINK_NOFOLLOW)
		created := false
		var fd int
		switch {
		case err == unix.ENOENT:
			fd, err = unix.Openat(dirFD, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|lockOpenFlags, 0o666)
			if err == unix.EEXIST {
				continue // another run created it in between: open it as existing
			}
			created = true
		case err != nil:
			return nil, fail("stat", err)
		case !lockFileShape(&before):
			return nil, unsafe(&before)
		default:
			fd, err = unix.Openat(dirFD, name, unix.O_RDWR|lockOpenFlags, 0)
			if err == unix.EACCES || err == unix.EPERM {
				fd, err = unix.Openat(dirFD, name, unix.O_RDONLY|lockOpenFlags, 0)
			}
		}
		if err == unix.ENOENT {
			continue // removed in between: look again
		}
		if err == unix.ELOOP {
			// A link planted between the look and the open.
			if unix.Fstatat(dirFD, name, &before, unix.AT_SYMLINK_NOFOLLOW) == nil {
				return nil, unsafe(&before)
			}
		}
		if err != nil {
			return nil, fail("open", err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return nil, fail("fstat", err)
		}
		if !lockFileShape(&st) || (!created && (st.Dev != before.Dev || st.Ino != before.Ino)) {
			// Replaced between the look and the open: whatever it is
			// now, it is not what was checked.
			unix.Close(fd)
			if lockFileShape(&st) {
				continue
			}
			return nil, unsafe(&st)
		}
		if created {
			// The umask narrowed the mode; other users write records too.
			unix.Fchmod(fd, 0o666)
		}
		// Back to blocking mode, which O_NONBLOCK left: the os package
		// would otherwise treat the descriptor as pollable.
		if err := unix.SetNonblock(fd, false); err != nil {
			unix.Close(fd)
			return nil, fail("fcntl", err)
		}
		return os.NewFile(uintptr(fd), path), nil
	}
	return nil, fmt.Errorf("host claim: %s keeps appearing and disappearing", path)
}

// tryLock takes an exclusive flock without blocking; held reports that
// another open file description has it. flock belongs to the open file
// description, so two opens in one process conflict like two processes.
func tryLock(f *os.File) (held bool, err error) {
	err = onFD(f, func(fd int) error {
		for {
			if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != unix.EINTR {
				return err
			}
		}
	})
	if err == unix.EWOULDBLOCK {
		return true, nil
	}
	return false, err
}

// describeHolder says who holds f's lock: the record in the file, and the
// process /proc/locks names, and what is odd about them.
func describeHolder(f *os.File, cpu int, path string) Holder {
	h := Holder{CPU: cpu, Path: path}
	if r, ok := parseRecord(readHead(f)); ok {
		h.Record = &r
	}
	if fi, err := f.Stat(); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			h.LockPID = flockHolder(uint64(st.Dev), st.Ino)
		}
	}
	var notes []string
	switch {
	case h.LockPID == 0:
		notes = append(notes, "the lock's holder is not in /proc/locks (another PID namespace?)")
	case !alive(h.LockPID):
		notes = append(notes, fmt.Sprintf("pid %d, which took the lock, has ended; a process that inherited its descriptor still holds it", h.LockPID))
	case h.Record != nil && h.Record.PID != h.LockPID:
		notes = append(notes, fmt.Sprintf("the lock was taken by pid %d, not by the recorded owner", h.LockPID))
	}
	if h.Record == nil {
		notes = append(notes, "the file holds no owner record (being written, or a tool that writes none)")
	}
	for _, pid := range []int{h.LockPID, recordPID(h.Record)} {
		if st, _ := sandbox.ProcessState(pid); pid != 0 && st == 'T' {
			notes = append(notes, fmt.Sprintf("pid %d is stopped: the claim is held until it is continued or killed", pid))
			break
		}
	}
	h.Note = strings.Join(notes, "; ")
	return h
}

func readHead(f *os.File) []byte {
	buf := make([]byte, 4096)
	n, _ := f.ReadAt(buf, 0)
	return buf[:n]
}

// flockHolder finds the pid holding an flock on the file (dev, ino) in
// /proc/locks, whose lines read
//
//	1: FLOCK  ADVISORY  WRITE 4242 08:01:131090 0 EOF
//
// with the device as hex major:minor. Overlay and btrfs report another
// device in stat than in /proc/locks, so a unique match on the inode alone
// is taken when the device does not match.
func flockHolder(dev, ino uint64) int {
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		return 0
	}
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(dev), unix.Minor(dev), ino)
	inoSuffix := ":" + strconv.FormatUint(ino, 10)
	byIno, inoMatches := 0, 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 || f[1] != "FLOCK" { // "->" lines are blocked waiters
			continue
		}
		pid, err := strconv.Atoi(f[4])
		if err != nil {
			continue
		}
		if f[5] == want {
			return pid
		}
		if strings.HasSuffix(f[5], inoSuffix) {
			byIno, inoMatches = pid, inoMatches+1
		}
	}
	if inoMatches == 1 {
		return byIno
	}
	return 0
}

func alive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || err == unix.EPERM
}

// writeRecords notes what the previous records say, then replaces each
// with this claim's.
func (c *HostClaim) writeRecords(cmd string) error {
	host, _ := os.Hostname()
	rec := OwnerRecord{PID: os.Getpid(), Host: host, Started: time.Now().UTC().Format(time.RFC3339), CPUs: c.report.CPUs, Cmd: cmd}
	line, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("host claim: %w", err)
	}
	line = append(line, '\n')
	noted := map[int]bool{}
	for _, f := range c.files {
		if prev, ok := parseRecord(readHead(f)); ok && prev.PID != rec.PID && prev.Host == host && !noted[prev.PID] && !alive(prev.PID) {
			noted[prev.PID] = true
			who := fmt.Sprintf("pid %d", prev.PID)
			if prev.Cmd != "" {
				who += " (" + prev.Cmd + ")"
			}
			c.report.Notes = append(c.report.Notes, "previous owner "+who+" ended without releasing its record")
		}
		err := f.Truncate(0)
		if err == nil {
			_, err = f.WriteAt(line, 0)
		}
		if err == nil {
			err = f.Sync()
		}
		if err != nil {
			// Locked but unrecorded: others waiting see the old record,
			// and the lock's real taker in their Holder.Note.
			c.report.Notes = append(c.report.Notes, fmt.Sprintf("%s: owner record not written: %v", f.Name(), err))
		}
	}
	return nil
}

// Release empties the records and lets go of the locks. It may be called
// more than once, and from any goroutine; a nil claim (none taken) has
// nothing to release.
func (c *HostClaim) Release() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, f := range c.files {
		if err := f.Truncate(0); err != nil && !errors.Is(err, fs.ErrPermission) && !errors.Is(err, unix.EINVAL) && !errors.Is(err, unix.EBADF) {
			errs = append(errs, fmt.Errorf("host claim release: %w", err))
		}
		if err := f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("host claim release: %w", err))
		}
	}
	c.files = nil
	return errors.Join(errs...)
}
