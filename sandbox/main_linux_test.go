//go:build linux

package sandbox

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/benchsup/benchsup/protocol"
)

// The test binary doubles as every child these tests need, as os/exec's own
// tests do: TestMain checks behaviourEnv (passed with EnvPolicy.Set, since
// the environment is strict) and, when it is set, acts as that child.
const behaviourEnv = "BENCHSUP_SANDBOX_TEST_CHILD"

// leakMarker names a file that TestMain holds open on a descriptor without
// close-on-exec, as if the supervisor had inherited it from its own parent.
// No child may see it.
const leakMarker = "benchsup-leak-marker"

var leakedFD = -1

// spins is what the cpu-limit behaviour's loop writes, so that it is work.
var spins int

// helperShim runs every helper child under benchsup's shim (Config.Shim).
var helperShim bool

// floodTotal is what the "flood" child writes to stdout.
const floodTotal = 300 << 20

var testRequest = protocol.Request{
	Mode:       protocol.ModeBenchmark,
	Identity:   protocol.Identity{Package: "example.com/p", Name: "BenchmarkX/n=1"},
	Repetition: 2,
	Seed:       42,
}

func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == ReaperArg {
		os.Exit(ReaperMain(os.Stdin)) // StartReaper's process (reaper_linux_test.go)
	}
	if len(os.Args) >= 2 && os.Args[1] == ShimArg {
		os.Exit(ShimMain(os.Args[2:])) // a child's shim (Config.Shim)
	}
	if os.Getenv("BENCHSUP_SANDBOX_TEST_SHIM") != "" {
		// Run the suite with every helper child under the shim.
		helperShim = true
	}
	if b, ok := os.LookupEnv(behaviourEnv); ok {
		os.Exit(child(b))
	}
	if os.Getenv("BENCHSUP_SANDBOX_TEST_NO_CGROUP") != "" {
		// Run the suite as on a host without a writable cgroup2.
		cgroupOverride = &cgroupSupport{note: "disabled by BENCHSUP_SANDBOX_TEST_NO_CGROUP"}
	}
	if os.Getenv("BENCHSUP_SANDBOX_TEST_NO_LIMITS") != "" {
		// Run the suite as on a host without writable memory and pids
		// controllers (and compare the spawn's cost without them).
		note := "disabled by BENCHSUP_SANDBOX_TEST_NO_LIMITS"
		limitOverride = &limitProbe{LimitSupport: LimitSupport{MemoryNote: note, PidsNote: note}}
	}
	f, err := os.CreateTemp("", leakMarker)
	if err != nil {
		panic(err)
	}
	// dup(2) never sets close-on-exec.
	if leakedFD, err = syscall.Dup(int(f.Fd())); err != nil {
		panic(err)
	}
	f.Close()
	os.Remove(f.Name())

	// One child before the tests, so that what the runtime opens lazily on
	// first use (the netpoller's descriptors) is not mistaken by the
	// per-test descriptor checks for a leak.
	if o := Run(helper("ok"), testRequest, nil); o.Class != ClassSuccess {
		fmt.Fprintf(os.Stderr, "warm-up child: %v: %v\nstderr: %s\n", o.Class, o.Err, o.Stderr.Tail)
		os.Exit(1)
	}
	// The parallel subtests (TestClasses, TestStacksAtTimeout,
	// TestGrandchildren, TestProgramMode) mostly wait out deadlines and
	// graces: eight at once, not one per CPU, unless -test.parallel says.
	flag.Parse()
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		flag.Set("test.parallel", "8")
	}
	code := m.Run()
	syscall.Close(leakedFD)
	os.Exit(code)
}

// helper returns a Config that runs this test binary as the child named by
// behaviour, with timeouts generous enough for a -race build.
func helper(behaviour string) Config {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return Config{
		Path: exe,
		Env: EnvPolicy{
			Keep: []string{"GOCOVERDIR"}, // so that -cover runs stay quiet
			Set: []string{
				behaviourEnv + "=" + behaviour,
				// A -race child otherwise sleeps a second at exit;
				// other binaries ignore it.
				"GORACE=atexit_sleep_ms=0",
			},
		},
		StartupTimeout: 10 * time.Second,
		TotalTimeout:   20 * time.Second,
		Grace:          500 * time.Millisecond,
		Shim:           helperShim,
	}
}

// garbage is a well-framed payload of an unknown message kind.
var garbage = []byte{0, 0, 0, 5, 0xEE, 1, 2, 3, 4}

func hang() {
	for {
		time.Sleep(time.Hour)
	}
}

// spinForever never blocks: the Go runtime must preempt it to print its
// stack.
func spinForever() {
	//lint:ignore SA5002 spinning without a call is the behaviour under test
	for {
	}
}

// child acts as the child named by behaviour and returns its exit status.
func child(behaviour string) int {
	if behaviour == "gc-hang" {
		// A grandchild: no protocol, deaf to SIGTERM, never ends.
		signal.Ignore(syscall.SIGTERM)
		hang()
	}
	ep, err := protocol.ChildEndpoint()
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 100
	}
	conn := protocol.NewConn(ep)
	must := func(err error) {
		if err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(101)
		}
	}
	hello := protocol.Hello{
		ProtocolVersion: protocol.Version,
		PID:             os.Getpid(),
		GoVersion:       runtime.Version(),
		GOOS:            runtime.GOOS,
		GOARCH:          runtime.GOARCH,
		WorkerVersion:   "test",
	}
	switch behaviour {
	case "slow-hello":
		time.Sleep(time.Minute)
	case "garbage-hello":
		ep.Write(garbage)
		hang()
	case "bad-version":
		hello.ProtocolVersion = protocol.Version + 1
	case "no-hello-exit0": // a TestMain that returns without m.Run
		return 0
	case "no-hello-exit1":
		fmt.Fprintln(os.Stderr, "setup failed")
		return 1
	}
	must(conn.Send(hello))
	m, err := conn.Receive()
	must(err)
	req, ok := m.(protocol.Request)
	if !ok {
		fmt.Fprintf(os.Stderr, "child: got %T, want a request\n", m)
		return 102
	}
	must(conn.Send(protocol.Ready{Identity: req.Identity}))
	log := func(s string) { must(conn.Send(protocol.Log{Text: s})) }
	done := func() { must(conn.Send(protocol.Done{})) }
	result := protocol.Result{
		Identity:   req.Identity,
		Repetition: req.Repetition,
		Seed:       req.Seed,
		Samples:    []protocol.Sample{{Iterations: 1, ElapsedNs: 100}},
	}
	failure := protocol.Failure{Class: protocol.FailurePanic, Message: "boom", Stack: "goroutine 1 [running]:"}

	switch behaviour {
	case "ok":
		fmt.Print("out-line\n")
		fmt.Fprint(os.Stderr, "err-line\n")
		must(conn.Send(result))
		done()
	case "done":
		done()
	case "cgroups":
		// Its own cgroups and its parent's (the shim's), one line each.
		for _, who := range []string{"self", strconv.Itoa(os.Getppid())} {
			b, err := os.ReadFile("/proc/" + who + "/cgroup")
			must(err)
			log(who + "\n" + string(b))
		}
		// Its v1 pids limit, where the hierarchy is mounted as usual.
		b, _ := os.ReadFile("/proc/self/cgroup")
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.SplitN(l, ":", 3); len(f) == 3 && f[1] == "pids" {
				if max, err := os.ReadFile("/sys/fs/cgroup/pids" + f[2] + "/pids.max"); err == nil {
					log("pids.max=" + strings.TrimSpace(string(max)))
				}
			}
		}
		done()
	case "comm":
		// The command name ps shows, as the exec gave it.
		comm, err := os.ReadFile("/proc/self/comm")
		must(err)
		fmt.Fprint(os.Stderr, "comm="+string(comm))
		must(conn.Send(result))
		done()
	case "delete-self":
		// As a test that removes os.Args[0]: the next child must not care.
		must(os.Remove(os.Args[0]))
		must(conn.Send(result))
		done()
	case "skip":
		must(conn.Send(protocol.Skip{Reason: "not today"}))
		done()
	case "failure":
		fmt.Fprint(os.Stderr, "panic: boom\n")
		must(conn.Send(failure))
		done()
		return 1
	case "failure-no-done":
		must(conn.Send(failure))
		return 1
	case "exit3":
		fmt.Fprint(os.Stderr, "bad things happened\n")
		return 3
	case "kill-self":
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		hang()
	case "fsize-kill-self":
		// A lowered soft limit, a lowered hard limit and a raised soft
		// descriptor limit, then a death the limits did not cause.
		must(syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: 0, Max: 4096}))
		var nofile syscall.Rlimit
		must(syscall.Getrlimit(syscall.RLIMIT_NOFILE, &nofile))
		must(syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: nofile.Max, Max: nofile.Max}))
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		hang()
	case "cpu-limit":
		// The kernel's SIGKILL at the hard CPU time limit (the Go runtime
		// ignores the SIGXCPU before it).
		must(syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: 1, Max: 1}))
		for n := 0; ; n++ {
			spins = n // until the kernel's SIGKILL
		}
	case "abort":
		debug.SetTraceback("crash") // the runtime then dies by SIGABRT
		panic("crash on purpose")
	case "fatal":
		// A Go runtime fatal error: exit status 2, the text on stderr.
		// (Not a deadlock: testify, linked into this binary, keeps a
		// timer that hides a deadlock from the runtime's detector.)
		var mu sync.Mutex
		mu.Unlock()
	case "hang":
		hang()
	case "hang-ignore-term":
		signal.Ignore(syscall.SIGTERM)
		hang()
	case "hang-ignore-quit-term":
		signal.Ignore(syscall.SIGQUIT, syscall.SIGTERM)
		hang()
	case "hang-notify-quit":
		// Handles SIGQUIT itself (as a program that dumps its own state
		// would), so the runtime prints no stacks and does not exit.
		quit := make(chan os.Signal, 1)
		signal.Notify(quit, syscall.SIGQUIT)
		go func() {
			<-quit
			fmt.Fprint(os.Stderr, "got SIGQUIT, carrying on\n")
		}()
		hang()
	case "spin":
		fmt.Fprint(os.Stderr, "before the timeout\n")
		spinForever()
	case "garbage":
		ep.Write(garbage)
		hang()
	case "partial-frame-exit3", "partial-frame-exit0":
		// A frame header promising 100 bytes, then only 10, then death.
		ep.Write(append([]byte{0, 0, 0, 100, byte(protocol.KindLog)}, make([]byte, 9)...))
		if behaviour == "partial-frame-exit3" {
			os.Exit(3)
		}
		os.Exit(0)
	case "no-done":
		must(conn.Send(result))
	case "stop-self":
		syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		time.Sleep(2 * time.Second) // the stop does not always take hold before kill(2) returns
		done()
	case "flood":
		flood(floodTotal)
		done()
	case "flood-forever":
		chunk := pattern(64 << 10)
		for {
			os.Stdout.Write(chunk)
			os.Stderr.Write(chunk[:1000])
		}
	case "signal-parent-TERM", "signal-parent-KILL", "signal-parent-USR1", "signal-group-TERM":
		// Code under test that signals "its parent", or its group.
		sig := map[string]syscall.Signal{"TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL, "USR1": syscall.SIGUSR1}[behaviour[strings.LastIndexByte(behaviour, '-')+1:]]
		target := os.Getppid()
		if strings.HasPrefix(behaviour, "signal-group") {
			target = 0
		}
		must(conn.Send(result))
		must(syscall.Kill(target, sig))
		hang()
	case "escape-everything":
		// A grandchild that leaves the process group and the cgroup (to
		// the cgroup2 mount's root, as root may), then the child exits.
		pid := startGrandchild(ep, true)
		if err := os.WriteFile(cgroup2Root()+"/cgroup.procs", []byte(strconv.Itoa(pid)), 0); err != nil {
			fmt.Fprintln(os.Stderr, "child: leaving the cgroup:", err)
			os.Exit(108)
		}
		log(fmt.Sprintf("grandchild=%d", pid))
		done()
	case "grandchild", "grandchild-hang", "escape":
		log(fmt.Sprintf("grandchild=%d", startGrandchild(ep, behaviour == "escape")))
		if behaviour == "grandchild-hang" {
			hang()
		}
		done()
	case "fds":
		log(listFDs())
		done()
	case "env":
		log(strings.Join(os.Environ(), "\n"))
		done()
	case "cwd":
		wd, err := os.Getwd()
		must(err)
		log("cwd=" + wd)
		done()
	case "intermediate":
		// A supervisor of its own, which the test then kills.
		cfg := helper("hang")
		cfg.Cgroup = CgroupOff // only the parent-death signal may reach the grandchild
		c, err := Start(cfg)
		must(err)
		_, err = c.Hello()
		must(err)
		must(c.Send(testRequest))
		log(fmt.Sprintf("grandchild=%d", c.PID()))
		hang()
	case "alloc":
		// Allocates and touches up to 256 MiB, 4 MiB at a time: past a
		// smaller memory limit the kernel kills it; without one it stops.
		// (1 GiB took TestMemoryLimitNotReached 2 s, 7-17 s on a loaded host.)
		var keep [][]byte
		for range 64 {
			b := make([]byte, 4<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			keep = append(keep, b)
		}
		log(fmt.Sprintf("allocated=%d", len(keep)*4<<20))
		done()
	case "pagecache":
		// Writes 64 MiB to a file and reads it back: page cache, which
		// the kernel reclaims at a smaller limit instead of killing.
		f, err := os.CreateTemp("", "benchsup-pagecache")
		must(err)
		defer os.Remove(f.Name())
		chunk := make([]byte, 1<<20)
		for range 64 {
			_, err := f.Write(chunk)
			must(err)
		}
		must(f.Close())
		f, err = os.Open(f.Name())
		must(err)
		read := 0
		for {
			n, err := f.Read(chunk)
			read += n
			if err != nil {
				break
			}
		}
		f.Close()
		log(fmt.Sprintf("read=%d", read))
		done()
	case "forkbomb":
		// Starts at most 200 sleeping grandchildren (so that even without
		// a limit it cannot hurt the host), giving up after 20 refusals.
		started, refused := 0, 0
		exe, err := os.Executable()
		must(err)
		for range 200 {
			cmd := exec.Command(exe)
			cmd.Env = []string{behaviourEnv + "=gc-hang"}
			if cmd.Start() != nil {
				if refused++; refused == 20 {
					break
				}
				continue
			}
			started++
		}
		log(fmt.Sprintf("started=%d refused=%d", started, refused))
		done()
	default:
		fmt.Fprintf(os.Stderr, "child: unknown behaviour %q\n", behaviour)
		return 104
	}
	return 0
}

// pattern returns n bytes of the flood pattern: byte k is k mod 251. n is a
// multiple of 251 so that chunks can follow each other.
func pattern(n int) []byte {
	n -= n % 251
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

func flood(total int) {
	chunk := pattern(1 << 20)
	for total > 0 {
		n := min(total, len(chunk))
		if _, err := os.Stdout.Write(chunk[:n]); err != nil {
			os.Exit(105)
		}
		total -= n
	}
}

// startGrandchild starts a gc-hang grandchild that holds stdout, stderr and
// the endpoint; with escape it leaves the process group (setsid).
func startGrandchild(ep *os.File, escape bool) int {
	exe, err := os.Executable()
	if err != nil {
		os.Exit(106)
	}
	cmd := exec.Command(exe)
	cmd.Env = []string{behaviourEnv + "=gc-hang"}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{ep}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: escape}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(107)
	}
	return cmd.Process.Pid
}

// listFDs lists this process's descriptors as "fd target" lines, leaving out
// the descriptor of the directory being read.
func listFDs() string {
	d, err := os.Open("/proc/self/fd")
	if err != nil {
		return "error: " + err.Error()
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return "error: " + err.Error()
	}
	self := strconv.Itoa(int(d.Fd()))
	var lines []string
	for _, n := range names {
		if n == self {
			continue
		}
		target, err := os.Readlink("/proc/self/fd/" + n)
		if err != nil {
			continue
		}
		lines = append(lines, n+" "+target)
	}
	return strings.Join(lines, "\n")
}

// cgroup2Root is the mount point of the cgroup2 hierarchy ("" if none).
func cgroup2Root() string {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok || !strings.HasPrefix(post, "cgroup2 ") {
			continue
		}
		if f := strings.Fields(pre); len(f) >= 5 {
			return f[4]
		}
	}
	return ""
}
