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

	"github.com/benchsup/benchsup/sandbox"

	"github.com/benchsup/benchsup/report"
)

// systemClaimDir is shared by every user of the host on a usual Linux
// system: /run/lock is a world-writable sticky tmpfs.
const systemClaimDir = "/run/lock/benchsup"

// DefaultClaimDir is $BENCHSUP_CLAIM_DIR when set, else /run/lock/benchsup
// when it exists or can be created, else benchsup-claim under os.TempDir().
// Two runs coordinate only if they resolve to the same directory.
func DefaultClaimDir() string {
	if d := os.Getenv(ClaimDirEnv); d != "" {
		return d
	}
	if ensureClaimDir(systemClaimDir) == nil {
		return systemClaimDir
	}
	return filepath.Join(os.TempDir(), "benchsup-claim")
}

// ensureClaimDir makes dir a directory every user can add lock files to:
// created 01777 (sticky, like /tmp, so a user cannot remove another's
// files), and writable by us.
func ensureClaimDir(dir string) error {
	err := os.Mkdir(dir, 0o777)
	switch {
	case err == nil:
		// Mkdir's mode passes through the umask; the sticky bit does not.
		if err := os.Chmod(dir, 0o777|os.ModeSticky); err != nil {
			return fmt.Errorf("host claim directory: %w", err)
		}
	case errors.Is(err, fs.ErrExist):
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return fmt.Errorf("host claim directory %s: not a directory", dir)
		}
	default:
		return fmt.Errorf("host claim directory: %w", err)
	}
	if err := unix.Access(dir, unix.W_OK|unix.X_OK); err != nil {
		return fmt.Errorf("host claim directory %s: not writable: %w", dir, err)
	}
	return nil
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
	if err := ensureClaimDir(dir); err != nil {
		return nil, err
	}
	c := &HostClaim{report: report.HostClaim{Dir: dir, CPUs: FormatCPUList(cpus), MachineWide: machineWide}}
	start := time.Now()
	var last *Holder
	for {
		files, holder, err := lockAll(dir, cpus)
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

// lockAll locks every CPU's file, or none: when one is held it closes what
// it took and describes that one's holder.
func lockAll(dir string, cpus []int) ([]*os.File, *Holder, error) {
	files := make([]*os.File, 0, len(cpus))
	closeAll := func() {
		for _, f := range files {
			f.Close()
		}
	}
	for _, cpu := range cpus {
		path := filepath.Join(dir, "cpu"+strconv.Itoa(cpu)+".lock")
		f, err := openLockFile(path)
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

// openLockFile opens path for writing the record, creating it readable and
// writable by all. It never opens an existing file with O_CREAT: in a
// sticky world-writable directory, fs.protected_regular refuses that for
// another user's file. A file we may not write is opened read-only, which
// is enough to lock it.
func openLockFile(path string) (*os.File, error) {
	for range 3 {
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err == nil {
			return f, nil
		}
		if errors.Is(err, fs.ErrPermission) {
			if f, err := os.OpenFile(path, os.O_RDONLY, 0); err == nil {
				return f, nil
			}
			return nil, fmt.Errorf("host claim: %w", err)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("host claim: %w", err)
		}
		f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			// The umask narrowed the mode; other users write records too.
			f.Chmod(0o666)
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("host claim: %w", err)
		}
		// Another run created it in between: open it as existing.
	}
	return nil, fmt.Errorf("host claim: %s keeps appearing and disappearing", path)
}

// tryLock takes an exclusive flock without blocking; held reports that
// another open file description has it. flock belongs to the open file
// description, so two opens in one process conflict like two processes.
func tryLock(f *os.File) (held bool, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			ferr = unix.Flock(int(fd), unix.LOCK_EX|unix.LOCK_NB)
			if ferr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return false, err
	}
	if ferr == unix.EWOULDBLOCK {
		return true, nil
	}
	return false, ferr
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
