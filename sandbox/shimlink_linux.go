//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// shimLink is the sandbox's side of a shim (see ShimArg): the control pipe
// on which it announces its own signals before sending them, and what the
// shim reported on its report pipe.
type shimLink struct {
	ctrl  *os.File      // write end of the control pipe
	first chan struct{} // closed once the program started, failed to, or the report ended
	done  chan struct{} // closed at the report's end

	mu       sync.Mutex
	child    int   // the program's pid; 0 until reported
	startErr error // the shim could not start the program
	stopped  syscall.Signal
	foreign  []foreignSignal // signals the sandbox did not send, as they reached the shim
	left     []leftProc
	escaped  int // of left, how many had left the process group and the cgroup
	limits   []LimitChange
	status   *syscall.WaitStatus
}

func newShimLink(ctrl, report *os.File) *shimLink {
	l := &shimLink{ctrl: ctrl, first: make(chan struct{}), done: make(chan struct{})}
	go l.read(report)
	return l
}

// read parses the shim's report until its end. The shim is benchsup's own
// code, but its lines are parsed defensively all the same: a line that
// does not parse is ignored.
func (l *shimLink) read(report *os.File) {
	defer report.Close()
	defer close(l.done)
	var firstOnce sync.Once
	signalFirst := func() { firstOnce.Do(func() { close(l.first) }) }
	defer signalFirst()
	sc := bufio.NewScanner(report)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		l.mu.Lock()
		switch f[0] {
		case shimChild:
			if len(f) == 2 {
				l.child, _ = strconv.Atoi(f[1])
			}
			l.mu.Unlock()
			signalFirst()
			continue
		case shimStartError:
			if len(f) >= 2 {
				n, _ := strconv.Atoi(f[1])
				text := strings.Join(f[2:], " ")
				l.startErr = &shimStartErr{errno: syscall.Errno(n), text: text}
			}
			l.mu.Unlock()
			signalFirst()
			continue
		case shimStopped:
			if len(f) == 2 {
				n, _ := strconv.Atoi(f[1])
				l.stopped = syscall.Signal(n)
			}
		case shimContinued:
			l.stopped = 0
		case shimSignal:
			if len(f) == 5 {
				n, _ := strconv.Atoi(f[1])
				pid, _ := strconv.Atoi(f[2])
				from, _ := strconv.Atoi(f[3])
				l.foreign = append(l.foreign, foreignSignal{sig: syscall.Signal(n), pid: pid, from: SignalSource(from), comm: f[4]})
			}
		case shimLeft:
			if len(f) == 6 {
				pid, _ := strconv.Atoi(f[1])
				l.left = append(l.left, leftProc{pid: pid, stdout: f[2] == "1", stderr: f[3] == "1", comm: f[5]})
				if f[4] == "1" {
					l.escaped++
				}
			}
		case shimLimit:
			if len(f) == 6 {
				var v [4]uint64
				ok := true
				for i := range v {
					var err error
					if v[i], err = strconv.ParseUint(f[2+i], 10, 64); err != nil {
						ok = false
					}
				}
				if ok {
					l.limits = append(l.limits, LimitChange{Resource: f[1], WasSoft: v[0], WasHard: v[1], Soft: v[2], Hard: v[3]})
				}
			}
		case shimExit:
			if len(f) == 2 {
				if n, err := strconv.ParseUint(f[1], 10, 32); err == nil {
					ws := syscall.WaitStatus(uint32(n))
					l.status = &ws
				}
			}
		}
		l.mu.Unlock()
	}
}

// foreignSignal is a signal that reached the shim from someone other than
// the sandbox, and who sent it as the shim saw it.
type foreignSignal struct {
	sig  syscall.Signal
	pid  int // -1: unknown
	from SignalSource
	comm string
}

// shimStartErr is the shim's report that it could not start the program.
type shimStartErr struct {
	errno syscall.Errno
	text  string
}

func (e *shimStartErr) Error() string { return e.text }
func (e *shimStartErr) Unwrap() error { return e.errno }

// errShimEnded: the shim's report ended before it said that it started the
// program or why it could not (the shim died: see shimEnded).
// cldExited is CLD_EXITED, the si_code of a child that exited.
const cldExited = 1

var errShimEnded = errors.New("benchsup's shim ended before it started the program")

// started waits until the shim has started the program, or said why not,
// for at most d.
func (l *shimLink) started(d time.Duration) (int, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-l.first:
	case <-t.C:
		return 0, errors.New("benchsup's shim did not start the program in time")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.startErr != nil:
		return 0, l.startErr
	case l.child <= 0:
		return 0, errShimEnded
	}
	return l.child, nil
}

// announce tells the shim that the sandbox is about to send sig to the
// group or to the shim, so that the shim does not take it for the code's.
func (l *shimLink) announce(sig syscall.Signal) {
	if sig == syscall.SIGKILL || sig <= 0 || sig > 255 {
		return
	}
	_, _ = l.ctrl.Write([]byte{byte(sig)})
}

// stoppedBy is the signal that stopped the program, if it is stopped now.
func (l *shimLink) stoppedBy() (syscall.Signal, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.stopped, l.stopped != 0
}

// finish waits a bounded time for the report's end, once the shim has
// exited, and closes the control pipe.
func (l *shimLink) finish() {
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	select {
	case <-l.done:
	case <-t.C:
	}
	l.ctrl.Close()
}

// shimEnded words errShimEnded from what the dead shim left: its wait
// status (read without reaping it, for at most a second) and the last line
// of what it wrote on stderr, such as the Go runtime's "failed to create
// new OS thread (... errno=11)" under a pids limit, which then wraps
// EAGAIN as a fork refused for the same reason does.
func shimEnded(proc *os.Process, stderr *os.File) error {
	var status string
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var info unix.Siginfo
		if err := unix.Waitid(unix.P_PID, proc.Pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil); err != nil {
			break
		}
		if info.Signo == int32(unix.SIGCHLD) {
			st := siginfoStatus(&info)
			status = exitStatusText(exitStatus{known: true, exited: info.Code == cldExited, code: int(st), signal: syscall.Signal(st)})
			break
		}
	}
	var tail []byte
	if stderr != nil && stderr.SetReadDeadline(time.Now().Add(time.Second)) == nil {
		tail, _ = io.ReadAll(io.LimitReader(stderr, 64<<10))
	}
	var last string
	for line := range strings.SplitSeq(strings.TrimSpace(string(tail)), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "goroutine ") && last == "" {
			last = line // the first line: the runtime's reason, before its stacks
		}
	}
	// The runtime says EAGAIN its own way: errno=11 (a thread of its
	// own) or, with cgo, pthread_create's strerror.
	const again = ": resource temporarily unavailable"
	eagain := strings.Contains(string(tail), "errno=11")
	if strings.HasSuffix(strings.ToLower(last), again) {
		last, eagain = last[:len(last)-len(again)], true
	}
	msg := errShimEnded.Error()
	if status != "" {
		msg += " (" + status + ")"
	}
	if last != "" {
		if len(last) > 200 {
			last = last[:200] + "..."
		}
		msg += ": " + last
	}
	if eagain {
		return fmt.Errorf("%s: %w", msg, syscall.EAGAIN)
	}
	return errors.New(msg)
}
