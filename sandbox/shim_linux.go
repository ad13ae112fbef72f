//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/benchsup/benchsup/protocol"
)

// The shim's report lines, one per line on its report pipe:
//
//	child PID              the program started
//	start-error ERRNO TEXT the program could not be started (then exit 127)
//	stopped SIGNUM         the program was stopped by a signal
//	continued              the program was continued
//	signal SIGNUM PID FROM COMM  a signal not announced by the sandbox reached the shim, and its sender (FROM a SignalSource)
//	left PID OUT ERR ESC COMM  a process of the tree left when the program exited, killed
//	limit NAME WASSOFT WASHARD SOFT HARD  a resource limit the program had lowered when it ended
//	exit WAITSTATUS        the program's wait status, the last line
const (
	shimChild      = "child"
	shimStartError = "start-error"
	shimStopped    = "stopped"
	shimContinued  = "continued"
	shimSignal     = "signal"
	shimLeft       = "left"
	shimLimit      = "limit"
	shimExit       = "exit"
)

// shimQuitGrace is how long the shim waits for the program's stacks after a
// foreign signal before it kills the program.
const shimQuitGrace = 2 * time.Second

// shimTeardownLimit bounds the shim's killing of what the program left: a
// process the kernel cannot kill at once (uninterruptible sleep) is named
// and left to the sandbox's cgroup and group kill.
const shimTeardownLimit = 5 * time.Second

func shimArgv(a shimArgs) []string {
	linkDir := a.linkDir
	if linkDir == "" {
		linkDir = "-"
	}
	return append([]string{"benchsup-shim", ShimArg, strconv.Itoa(a.nfiles), strconv.Itoa(a.ctrl),
		strconv.Itoa(a.report), strconv.Itoa(a.execFD), linkDir, a.path}, a.argv...)
}

func parseShimArgs(args []string) (shimArgs, error) {
	if len(args) < 7 {
		return shimArgs{}, errors.New("too few arguments")
	}
	var a shimArgs
	var err error
	for i, dst := range []*int{&a.nfiles, &a.ctrl, &a.report, &a.execFD} {
		if *dst, err = strconv.Atoi(args[i]); err != nil {
			return shimArgs{}, fmt.Errorf("argument %d: %w", i, err)
		}
	}
	a.linkDir, a.path, a.argv = args[4], args[5], args[6:]
	if a.linkDir == "-" {
		a.linkDir = ""
	}
	return a, nil
}

// ShimMain runs benchsup's shim (see ShimArg) with the arguments after
// ShimArg and returns its exit status. It never writes to its standard
// streams, which are the program's.
func ShimMain(args []string) int {
	// The program's parent-death signal fires when the thread that forked
	// it ends: this one, kept for the life of the process.
	runtime.LockOSThread()
	// Named for ps and the kernel's log, which would say "exe" (it runs
	// as /proc/self/exe).
	_ = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&shimComm[0])), 0, 0, 0)
	a, err := parseShimArgs(args)
	if err != nil {
		return 127
	}
	report := os.NewFile(uintptr(a.report), "benchsup-shim-report")
	syscall.CloseOnExec(a.report)
	syscall.CloseOnExec(a.ctrl)
	if err := unix.SetNonblock(a.ctrl, true); err != nil {
		return 127
	}
	s := &shim{report: bufio.NewWriter(report), ctrl: a.ctrl, announced: map[syscall.Signal]*announcement{}}
	defer s.flush()
	path := a.path
	if a.execFD >= 0 {
		fd, err := unix.FcntlInt(uintptr(a.execFD), unix.F_DUPFD_CLOEXEC, execFDFloor(a.nfiles))
		if err != nil {
			s.line(shimStartError, strconv.Itoa(int(errnoOf(err))), "dup: "+err.Error())
			return 127
		}
		unix.Close(a.execFD)
		path = namedExec("/proc/self/fd/"+strconv.Itoa(fd), a.linkDir, a.path)
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		s.line(shimStartError, strconv.Itoa(int(errnoOf(err))), "PR_SET_CHILD_SUBREAPER: "+err.Error())
		return 127
	}
	sigs := make(chan os.Signal, 64)
	signal.Notify(sigs)
	for _, sig := range shimSenderSignals {
		_ = WatchSender(sig) // where it cannot, the report says "unknown"
	}
	files := make([]*os.File, a.nfiles)
	for i := range files {
		files[i] = os.NewFile(uintptr(i), "")
	}
	proc, err := os.StartProcess(path, a.argv, &os.ProcAttr{
		Env:   os.Environ(),
		Files: files,
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		s.line(shimStartError, strconv.Itoa(int(errnoOf(err))), err.Error())
		return 127
	}
	s.child = proc.Pid
	// The OOM killer is to choose among the program's processes, never
	// the shim: its death ends the program (Pdeathsig), a second OOM of
	// a limit, while its first victim's memory was not yet uncharged,
	// took the shim (integration notes_limits), and its row blamed the
	// test that was running. Set after the start, which the program's
	// own score inherited from; where lowering is refused (not root),
	// it stays a choice as any process under the limit is.
	_ = os.WriteFile("/proc/self/oom_score_adj", []byte("-1000"), 0)
	s.line(shimChild, strconv.Itoa(s.child))
	s.flush()
	status := s.run(sigs)
	s.teardown()
	for _, c := range s.limits {
		s.line(shimLimit, c.Resource, strconv.FormatUint(c.WasSoft, 10), strconv.FormatUint(c.WasHard, 10),
			strconv.FormatUint(c.Soft, 10), strconv.FormatUint(c.Hard, 10))
	}
	s.line(shimExit, strconv.FormatUint(uint64(uint32(status)), 10))
	return 0
}

// shimComm is the shim's name, NUL-terminated, as PR_SET_NAME takes it.
var shimComm = []byte("benchsup-shim\x00")

type shim struct {
	report    *bufio.Writer
	ctrl      int
	child     int
	announced map[syscall.Signal]*announcement // signals the sandbox said it is sending
	killAt    time.Time                        // a foreign signal asked the program to end: kill it then
	limits    []LimitChange                    // the limits the program had lowered when it ended
}

func (s *shim) line(fields ...string) {
	s.report.WriteString(strings.Join(fields, " "))
	s.report.WriteByte('\n')
}

func (s *shim) flush() { _ = s.report.Flush() }

// announcement is what the sandbox said of one signal: when it last
// announced it, and how many announcements no delivery has answered yet.
// One announcement may be answered by several deliveries: the sandbox
// sends a signal to the group, to the shim and to each process of the
// cgroup, and the shim is all three, so a delivery within announceWindow
// of the announcement is the sandbox's, however many there are (a SIGQUIT
// is relayed to the program once per announcement).
type announcement struct {
	at        time.Time
	unrelayed int
}

// announceWindow is how long after its announcement a signal is taken for
// the sandbox's. It ends a child's last seconds at most: a signal the code
// sends its parent then, while the sandbox is ending it anyway, is not
// told apart.
const announceWindow = 5 * time.Second

// readAnnouncements reads the signal numbers the sandbox wrote on the
// control pipe before sending them: one byte each.
func (s *shim) readAnnouncements() {
	var buf [64]byte
	for {
		n, err := unix.Read(s.ctrl, buf[:])
		if n <= 0 || err != nil {
			return
		}
		now := time.Now()
		for _, b := range buf[:n] {
			a := s.announced[syscall.Signal(b)]
			if a == nil {
				a = &announcement{}
				s.announced[syscall.Signal(b)] = a
			}
			a.unrelayed++
			a.at = now
		}
	}
}

// run relays signals and reaps until the program exits, and returns its
// wait status.
func (s *shim) run(sigs <-chan os.Signal) syscall.WaitStatus {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if ws, done := s.reap(); done {
			return ws
		}
		select {
		case sig := <-sigs:
			s.handle(sig.(syscall.Signal))
		case <-tick.C:
			// SIGCHLDs coalesce and a reap can race a signal: look again.
		}
		if !s.killAt.IsZero() && time.Now().After(s.killAt) {
			_ = unix.Kill(s.child, unix.SIGKILL)
			s.killAt = time.Time{}
		}
	}
}

// reap collects every exited child of the shim (orphans it adopted
// included) and reports the program's stops; done once the program exited.
// Each child's change of state is looked at (waitid with WNOWAIT) before it
// is collected, so that the program's resource limits are read while it is
// still a zombie.
func (s *shim) reap() (syscall.WaitStatus, bool) {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WSTOPPED|unix.WCONTINUED|unix.WNOHANG|unix.WNOWAIT, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || info.Signo != int32(unix.SIGCHLD) {
			return 0, false
		}
		pid := siginfoPid(&info)
		if pid == s.child && info.Code != cldStopped && info.Code != cldContinued {
			s.limits = loweredLimits(pid)
		}
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG|syscall.WUNTRACED|syscall.WCONTINUED, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || got <= 0 {
			return 0, false
		}
		if got != s.child {
			continue // an adopted orphan that ended: reaped, nothing to say
		}
		switch {
		case ws.Stopped():
			s.line(shimStopped, strconv.Itoa(int(ws.StopSignal())))
			s.flush()
		case ws.Continued():
			s.line(shimContinued)
			s.flush()
		default:
			return ws, true
		}
	}
}

// cldContinued is CLD_CONTINUED, the si_code of a child continued by
// SIGCONT.
const cldContinued = 6

// handle acts on a signal that reached the shim.
func (s *shim) handle(sig syscall.Signal) {
	switch sig {
	case syscall.SIGCHLD, syscall.SIGURG, syscall.SIGWINCH, syscall.SIGPIPE, syscall.SIGPROF, syscall.SIGCONT:
		return // the runtime's, the kernel's or harmless
	}
	s.readAnnouncements()
	if a := s.announced[sig]; a != nil && time.Since(a.at) < announceWindow {
		if sig == syscall.SIGQUIT && a.unrelayed > 0 {
			// The sandbox asks the program, not the shim, for its stacks.
			_ = unix.Kill(s.child, unix.SIGQUIT)
		}
		a.unrelayed = max(a.unrelayed-1, 0)
		// Any other announced signal went to the whole group, the
		// program included.
		return
	}
	pid, from, comm := s.sender(sig)
	s.line(shimSignal, strconv.Itoa(int(sig)), strconv.Itoa(pid), strconv.Itoa(int(from)), comm)
	s.flush()
	if s.killAt.IsZero() {
		// Where the program was when this happened is in its stacks.
		_ = unix.Kill(s.child, unix.SIGQUIT)
		s.killAt = time.Now().Add(shimQuitGrace)
	}
}

// shimSenderSignals are the signals whose sender the shim names: every one
// that code could send to end a process and that the shim can catch.
var shimSenderSignals = []syscall.Signal{
	syscall.SIGHUP, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGUSR1,
	syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGVTALRM, syscall.SIGXCPU, syscall.SIGXFSZ,
	syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGPWR, syscall.SIGSYS,
	syscall.SIGTRAP, syscall.SIGABRT, syscall.SIGSTKFLT, syscall.SIGIO,
}

// sender names who sent sig: its pid (-1: unknown), where it stands
// relative to the program, and its name, read at once (a sender such as
// kill(1) exits right after).
func (s *shim) sender(sig syscall.Signal) (int, SignalSource, string) {
	pid, _, ok := SignalSender(sig)
	switch {
	case !ok:
		return -1, FromUnknown, "?"
	case pid == 0:
		return 0, FromKernel, "?"
	}
	st, ok := readStat(pid)
	switch {
	case !ok:
		return pid, FromUnknown, "?"
	case pid == s.child:
		return pid, FromProgram, sanitizeComm(st.comm)
	case DescendantOf(pid, s.child) || DescendantOf(pid, os.Getpid()):
		return pid, FromDescendant, sanitizeComm(st.comm)
	}
	return pid, FromOther, sanitizeComm(st.comm)
}

// teardown kills and reaps everything left in the shim's tree once the
// program exited, naming each process: what the program's processes
// started is reparented to the shim, its subreaper, wherever it moved.
func (s *shim) teardown() {
	selfPgid := unix.Getpgrp()
	selfCgroup, _ := os.ReadFile("/proc/self/cgroup")
	ownCgroup := os.Getenv(protocol.EnvCgroup) != ""
	stdoutIno, stderrIno := fdInode(1), fdInode(2)
	named := map[int]bool{}
	deadline := time.Now().Add(shimTeardownLimit)
	for time.Now().Before(deadline) {
		kids := ownChildren()
		if len(kids) == 0 {
			break
		}
		for _, pid := range kids {
			if named[pid] {
				continue
			}
			named[pid] = true
			st, ok := readStat(pid)
			if !ok || st.state == 'Z' || st.state == 'X' {
				continue
			}
			out, errHeld := false, false
			for _, ino := range pipesHeld(pid) {
				out = out || (ino != 0 && ino == stdoutIno)
				errHeld = errHeld || (ino != 0 && ino == stderrIno)
			}
			pgid := st.pgrp
			cg, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
			// Outside the group, and outside the child's cgroup when it
			// has one (the sandbox names it in the environment).
			escaped := pgid != selfPgid && (!ownCgroup || string(cg) != string(selfCgroup))
			s.line(shimLeft, strconv.Itoa(pid), bit(out), bit(errHeld), bit(escaped), sanitizeComm(st.comm))
		}
		for _, pid := range kids {
			_ = unix.Kill(pid, unix.SIGKILL) // our own unreaped child: the pid is ours
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil || pid <= 0 {
				break
			}
		}
		time.Sleep(time.Millisecond)
	}
	s.flush()
}

func bit(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// sanitizeComm keeps a process name on one report line.
func sanitizeComm(c string) string {
	if c == "" {
		return "?"
	}
	return strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return '_'
		}
		return r
	}, c)
}

// ownChildren lists the shim's live children (not the program, which has
// exited, and not zombies reaped since): /proc/self/task/*/children where
// the kernel has it, else a scan of /proc.
func ownChildren() []int {
	self := os.Getpid()
	var kids []int
	tasks, err := os.ReadDir("/proc/self/task")
	if err == nil {
		found := false
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
			if err != nil {
				continue
			}
			found = true
			for _, f := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(f); err == nil {
					kids = append(kids, pid)
				}
			}
		}
		if found {
			return kids
		}
	}
	return procsWhere(func(st statFacts) bool { return st.ppid == self })
}

// fdInode is the inode of this process's descriptor fd (a pipe's), or 0.
func fdInode(fd int) uint64 {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return 0
	}
	return st.Ino
}

func errnoOf(err error) syscall.Errno {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno
	}
	return 0
}
