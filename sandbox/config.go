package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/benchsup/benchsup/protocol"
)

// Defaults for the zero values of Config.
const (
	DefaultStartupTimeout = 10 * time.Second
	DefaultTotalTimeout   = 10 * time.Minute
	DefaultGrace          = time.Second
	DefaultQuitGrace      = time.Second
	DefaultDrainWindow    = 250 * time.Millisecond
	DefaultCaptureLimit   = 64 << 10
)

// childFD is the descriptor number of the protocol endpoint in the child:
// the first after stdin, stdout and stderr.
const childFD = 3

// Config describes one child. The zero value of every field but Path is
// usable.
type Config struct {
	// Path is the absolute path of the executable. It is run as is: no
	// shell, no PATH search. argv[0] is Path. Required.
	Path string
	// Executable, when not nil, is the file executed, by descriptor
	// (/proc/self/fd in the forked child): the caller holds it open from
	// the check it made to every child's exec, so that removing or
	// replacing Path (code under test may delete os.Args[0]) changes
	// nothing for the next child, and no one can swap the file checked
	// for another. Path is then argv[0] and the name rows show; it need
	// not exist. It must be a regular executable file, not a #! script
	// (an interpreter would be handed a descriptor closed at exec), and
	// /proc must be mounted; otherwise Start returns a *ConfigError. The
	// caller keeps ownership: Start neither closes nor moves it.
	Executable *os.File
	// Args are the arguments after argv[0].
	Args []string
	// Dir is the working directory. "" inherits the supervisor's; otherwise
	// it is made absolute and must be an existing directory, checked before
	// the spawn.
	Dir string
	// Env builds the environment; the zero value is the strict policy.
	Env EnvPolicy
	// StartupTimeout bounds the time from Start to the Hello; zero means
	// DefaultStartupTimeout. It never extends beyond TotalTimeout.
	StartupTimeout time.Duration
	// TotalTimeout bounds the time from Start to the child's exit; zero
	// means DefaultTotalTimeout.
	TotalTimeout time.Duration
	// QuitGrace is the time between SIGQUIT and SIGTERM when a deadline
	// expires; zero means DefaultQuitGrace. At a startup or execution
	// timeout the root alone gets SIGQUIT first, to which the Go runtime
	// answers by writing every goroutine's stack to stderr and exiting with
	// status 2; the head of that dump is Outcome.Stacks. A child that exits
	// sooner ends the wait; one that ignores or handles SIGQUIT gets SIGTERM
	// when it is over. A Go program prints its stacks in milliseconds: the
	// default leaves room for a large one, and costs only a child that
	// ignores SIGQUIT.
	QuitGrace time.Duration
	// Grace is the time between SIGTERM and SIGKILL when a deadline expires
	// or the context ends; zero means DefaultGrace.
	Grace time.Duration
	// DrainWindow bounds how long, once the child has been reaped and what
	// was left of its process group and cgroup killed, its stdout, stderr
	// and protocol endpoint are still read before they are closed, as
	// os/exec.Cmd.WaitDelay bounds the wait for inherited pipes. They
	// normally reach end-of-file at once: only a process that escaped
	// containment can hold them open, and Outcome.DrainNote then says which
	// it held. Zero means DefaultDrainWindow.
	DrainWindow time.Duration
	// StdoutLimit is how many bytes of stdout are retained (the last ones);
	// zero means DefaultCaptureLimit. Every byte is counted either way.
	StdoutLimit int
	// StderrLimit is the same for stderr.
	StderrLimit int
	// Cgroup says whether the child gets its own cgroup v2.
	Cgroup CgroupMode
	// CPUs, when not empty, pins the child to these CPUs: the spawning
	// thread's affinity is set to them before the fork, so the child
	// inherits it from its first instruction, and the child's affinity is
	// checked after the spawn (affinity_linux.go). A list the kernel does
	// not honor exactly fails the start with an *AffinityError. Empty
	// means the supervisor's own affinity, untouched.
	CPUs []int
	// MemoryLimit bounds the memory of the child and everything it forks,
	// in bytes, with swap held at zero where the kernel allows it
	// (limits_linux.go): past it the kernel's OOM killer ends the child,
	// classified ClassOutOfMemory. Zero means no limit. A limit on a host
	// without a writable memory controller (ProbeLimits) is a *ConfigError,
	// never silently ignored; so is a limit with CgroupOff.
	MemoryLimit int64
	// Program runs a plain program rather than a test binary with the
	// worker: no protocol endpoint (protocol.EnvFD is not set), no Hello
	// and no request, so the startup deadline does not apply and
	// TotalTimeout is the only one; exit status 0 is success. Hello,
	// Send and Receive are not for such a child (Receive returns io.EOF).
	Program bool
	// RecordFile, when not nil, is inherited by the child at the next
	// descriptor after the protocol endpoint (after stderr in Program
	// mode), and protocol.EnvRecordFD names it: the shared region a recorder in
	// the child delivers its spans through (docs/design.md#recording).
	// The caller keeps it open and closes it.
	RecordFile *os.File
	// Shim runs the program under benchsup's shim (see ShimArg): this
	// process's own executable, started with ShimArg, becomes the
	// program's parent, process-group leader and subreaper, so that code
	// that signals its parent ends itself only, and everything it leaves,
	// wherever it moved, is named and killed. The executable's main must
	// call ShimMain when it sees ShimArg (as benchsup's does). Linux
	// only; false (the zero value) starts the program directly.
	Shim bool
	// StdoutTee and StderrTee, when not nil, receive a copy of every byte
	// of the child's stdout and stderr as it is read (benchsup record
	// passes a program's output through to the terminal); the bounded
	// capture is kept either way. Their write errors are ignored.
	StdoutTee io.Writer
	StderrTee io.Writer
	// PidsLimit bounds the tasks (processes and threads) of the child and
	// everything it forks: a fork or clone beyond it fails, and
	// Outcome.Resources counts the refusals. Zero means no limit; refused
	// as MemoryLimit is where no pids controller can be written.
	PidsLimit int64
}

// CgroupMode selects cgroup containment.
type CgroupMode int

const (
	// CgroupAuto (the zero value) gives the child its own cgroup v2 when a
	// writable hierarchy is found, and falls back to process-group
	// containment, with the reason in Outcome.ContainmentNote, when not.
	CgroupAuto CgroupMode = iota
	// CgroupOff uses process-group containment only.
	CgroupOff
)

func (m CgroupMode) String() string {
	switch m {
	case CgroupAuto:
		return "auto"
	case CgroupOff:
		return "off"
	}
	return fmt.Sprintf("CgroupMode(%d)", int(m))
}

// EnvPolicy builds a child's environment. The zero value is strict: only the
// strict base (see StrictBase) is copied from the supervisor. The steps apply
// in this order: base (strict base, or the whole environment when Inherit),
// Keep, Remove, Set. protocol.EnvFD is then set to the endpoint's descriptor;
// naming it in Keep, Remove or Set is a configuration error. Names must be
// non-empty and contain neither '=' nor NUL.
//
// Variables that tune the Go runtime (GOGC, GOMEMLIMIT, GODEBUG, GOMAXPROCS,
// GOTRACEBACK, GORACE) are deliberately not in the strict base: they change
// the code under measurement, and inheriting them from whatever shell started
// the supervisor would make results depend on it invisibly. Keep or Set them,
// so that the choice shows in Outcome.EnvPolicy and EnvNamesHash. Locale (LANG,
// LC_*) and TZ are likewise opt-in: the Go runtime ignores locale, and TZ
// changes time.Local. Everything else (USER, TERM, SSH_AUTH_SOCK, tokens and
// other credentials) has no business in a benchmark.
type EnvPolicy struct {
	// Inherit copies the whole parent environment instead of the strict
	// base: an explicit opt-in. If Dir is set and PWD is inherited, PWD is
	// updated to Dir.
	Inherit bool
	// Keep names variables copied from the parent when present there, on
	// top of the base.
	Keep []string
	// Set holds NAME=VALUE pairs, applied last; a later pair for the same
	// name wins.
	Set []string
	// Remove names variables removed after the base and Keep, before Set.
	Remove []string
}

// strictBase is what a strict environment copies from the supervisor, each
// only when set there. None of them changes the Go runtime's behaviour.
//
//	HOME    os.UserHomeDir, and os.UserCacheDir/UserConfigDir fall back to
//	        it; much code under test fails without it.
//	PATH    code under test that runs tools (os/exec.LookPath) finds the same
//	        ones the user would.
//	TMPDIR  os.TempDir, t.TempDir and b.TempDir put files where the user
//	        chose (a tmpfs or a disk changes I/O benchmarks).
var strictBase = [...]string{"HOME", "PATH", "TMPDIR"}

// StrictBase returns the names a strict EnvPolicy copies from the supervisor
// when present there.
func StrictBase() []string { return slices.Clone(strictBase[:]) }

// resolved is a validated Config with defaults applied.
type resolved struct {
	path           string
	exec           *os.File // Config.Executable; nil: path is executed
	argv           []string
	dir            string
	env            []string
	envDesc        string
	envHash        string
	startupTimeout time.Duration
	totalTimeout   time.Duration
	quitGrace      time.Duration
	grace          time.Duration
	drainWindow    time.Duration
	stdoutLimit    int
	stderrLimit    int
	cgroup         CgroupMode
	cpus           []int // ascending, no duplicates; nil: not pinned
	memoryLimit    int64 // bytes; 0: none
	pidsLimit      int64 // 0: none
	program        bool
	recordFile     *os.File
	shim           bool
	shimArgs       *shimArgs // set by the spawn: the shim's arguments
	stdoutTee      io.Writer
	stderrTee      io.Writer
}

// resolve validates cfg against the file system and the parent environment
// and applies the defaults. Every error is a *ConfigError.
func (cfg *Config) resolve(parentEnv []string) (*resolved, error) {
	r := &resolved{cgroup: cfg.Cgroup}
	if cfg.Executable != nil {
		if err := checkExecutable(cfg.Path, cfg.Executable); err != nil {
			return nil, err
		}
		r.exec = cfg.Executable
	} else if err := checkPath(cfg.Path); err != nil {
		return nil, err
	}
	r.path = cfg.Path
	r.argv = make([]string, 0, 1+len(cfg.Args))
	r.argv = append(r.argv, cfg.Path)
	for i, a := range cfg.Args {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, &ConfigError{Field: fmt.Sprintf("Args[%d]", i), Reason: "contains NUL"}
		}
		r.argv = append(r.argv, a)
	}
	if cfg.Dir != "" {
		dir, err := checkDir(cfg.Dir)
		if err != nil {
			return nil, err
		}
		r.dir = dir
	}
	durations := []struct {
		field string
		v     time.Duration
		def   time.Duration
		dst   *time.Duration
	}{
		{"StartupTimeout", cfg.StartupTimeout, DefaultStartupTimeout, &r.startupTimeout},
		{"TotalTimeout", cfg.TotalTimeout, DefaultTotalTimeout, &r.totalTimeout},
		{"QuitGrace", cfg.QuitGrace, DefaultQuitGrace, &r.quitGrace},
		{"Grace", cfg.Grace, DefaultGrace, &r.grace},
		{"DrainWindow", cfg.DrainWindow, DefaultDrainWindow, &r.drainWindow},
	}
	for _, d := range durations {
		if d.v < 0 {
			return nil, &ConfigError{Field: d.field, Reason: fmt.Sprintf("negative duration %v", d.v)}
		}
		*d.dst = orDefault(d.v, d.def)
	}
	limits := []struct {
		field string
		v     int
		dst   *int
	}{
		{"StdoutLimit", cfg.StdoutLimit, &r.stdoutLimit},
		{"StderrLimit", cfg.StderrLimit, &r.stderrLimit},
	}
	for _, l := range limits {
		if l.v < 0 {
			return nil, &ConfigError{Field: l.field, Reason: fmt.Sprintf("negative limit %d", l.v)}
		}
		*l.dst = orDefault(l.v, DefaultCaptureLimit)
	}
	if cfg.Cgroup != CgroupAuto && cfg.Cgroup != CgroupOff {
		return nil, &ConfigError{Field: "Cgroup", Reason: fmt.Sprintf("unknown mode %d", int(cfg.Cgroup))}
	}
	if len(cfg.CPUs) > 0 {
		cpus, err := checkCPUs(cfg.CPUs)
		if err != nil {
			return nil, err
		}
		r.cpus = cpus
	}
	var sup LimitSupport
	if cfg.MemoryLimit != 0 || cfg.PidsLimit != 0 {
		sup = ProbeLimits() // only then: a run without limits never needs it here
	}
	if err := checkLimits(cfg, sup); err != nil {
		return nil, err
	}
	r.memoryLimit, r.pidsLimit = cfg.MemoryLimit, cfg.PidsLimit
	env, err := cfg.Env.build(parentEnv, r.dir)
	if err != nil {
		return nil, err
	}
	r.program, r.recordFile, r.shim = cfg.Program, cfg.RecordFile, cfg.Shim
	r.stdoutTee, r.stderrTee = cfg.StdoutTee, cfg.StderrTee
	r.env = descriptorEnv(env, cfg.Program, cfg.RecordFile != nil)
	r.envDesc = cfg.Env.describe()
	r.envHash = namesHash(env)
	return r, nil
}

// orDefault returns v, or def when v is zero.
func orDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}

func checkPath(path string) error {
	bad := func(reason string) error { return &ConfigError{Field: "Path", Reason: reason} }
	switch {
	case path == "":
		return bad("required")
	case strings.IndexByte(path, 0) >= 0:
		return bad("contains NUL")
	case !filepath.IsAbs(path):
		return bad(fmt.Sprintf("%q is not absolute (there is no PATH search)", path))
	}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return bad(err.Error())
	case fi.IsDir():
		return bad(fmt.Sprintf("%s is a directory", path))
	case !fi.Mode().IsRegular():
		return bad(fmt.Sprintf("%s is not a regular file (%v)", path, fi.Mode().Type()))
	case runtime.GOOS != "windows" && fi.Mode().Perm()&0o111 == 0:
		return bad(fmt.Sprintf("%s is not executable (mode %v)", path, fi.Mode().Perm()))
	}
	return nil
}

// checkExecutable checks a Config whose file is held by descriptor: path
// is only argv[0], the file must be what an exec by descriptor can run.
func checkExecutable(path string, f *os.File) error {
	bad := func(reason string) error { return &ConfigError{Field: "Executable", Reason: reason} }
	switch {
	case path == "":
		return &ConfigError{Field: "Path", Reason: "required (argv[0] and the name rows show)"}
	case strings.IndexByte(path, 0) >= 0:
		return &ConfigError{Field: "Path", Reason: "contains NUL"}
	}
	fi, err := f.Stat()
	switch {
	case err != nil:
		return bad(err.Error())
	case !fi.Mode().IsRegular():
		return bad(fmt.Sprintf("%s is not a regular file (%v)", f.Name(), fi.Mode().Type()))
	case fi.Mode().Perm()&0o111 == 0:
		return bad(fmt.Sprintf("%s is not executable (mode %v)", f.Name(), fi.Mode().Perm()))
	}
	var magic [2]byte
	if n, _ := f.ReadAt(magic[:], 0); n == 2 && string(magic[:]) == "#!" {
		return bad(fmt.Sprintf("%s is a #! script: its interpreter could not open a descriptor closed at exec", f.Name()))
	}
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		return bad("executing by descriptor needs /proc: " + err.Error())
	}
	return nil
}

func checkDir(dir string) (string, error) {
	bad := func(reason string) error { return &ConfigError{Field: "Dir", Reason: reason} }
	if strings.IndexByte(dir, 0) >= 0 {
		return "", bad("contains NUL")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", bad(err.Error())
	}
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return "", bad(err.Error())
	case !fi.IsDir():
		return "", bad(fmt.Sprintf("%s is not a directory", abs))
	}
	return abs, nil
}

func checkName(field, name string) error {
	var reason string
	switch {
	case name == "":
		reason = "empty variable name"
	case strings.IndexByte(name, '=') >= 0:
		reason = fmt.Sprintf("variable name %q contains '='", name)
	case strings.IndexByte(name, 0) >= 0:
		reason = fmt.Sprintf("variable name %q contains NUL", name)
	case name == protocol.EnvFD, name == protocol.EnvCgroup, name == EnvRun, name == protocol.EnvRecordFD:
		reason = fmt.Sprintf("%s is reserved: the sandbox sets it", name)
	default:
		return nil
	}
	return &ConfigError{Field: field, Reason: reason}
}

// build returns the child's environment, sorted by name. dir is the resolved
// working directory, "" when inherited.
func (p *EnvPolicy) build(parent []string, dir string) ([]string, error) {
	for i, n := range p.Keep {
		if err := checkName(fmt.Sprintf("Env.Keep[%d]", i), n); err != nil {
			return nil, err
		}
	}
	for i, n := range p.Remove {
		if err := checkName(fmt.Sprintf("Env.Remove[%d]", i), n); err != nil {
			return nil, err
		}
	}
	set := make([][2]string, 0, len(p.Set))
	for i, kv := range p.Set {
		field := fmt.Sprintf("Env.Set[%d]", i)
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, &ConfigError{Field: field, Reason: fmt.Sprintf("%q is not NAME=VALUE", kv)}
		}
		if err := checkName(field, name); err != nil {
			return nil, err
		}
		if strings.IndexByte(value, 0) >= 0 {
			return nil, &ConfigError{Field: field, Reason: fmt.Sprintf("value of %s contains NUL", name)}
		}
		set = append(set, [2]string{name, value})
	}

	// The parent's view: the first occurrence of a name wins, as in
	// os.Getenv.
	parentVars := make(map[string]string, len(parent))
	for _, kv := range parent {
		if name, value, ok := strings.Cut(kv, "="); ok && name != "" {
			if _, dup := parentVars[name]; !dup {
				parentVars[name] = value
			}
		}
	}
	env := make(map[string]string)
	if p.Inherit {
		for name, value := range parentVars {
			env[name] = value
		}
		if _, ok := env["PWD"]; ok && dir != "" {
			env["PWD"] = dir // as os/exec does: a stale PWD would mislead os.Getwd
		}
	} else {
		for _, name := range strictBase {
			if value, ok := parentVars[name]; ok {
				env[name] = value
			}
		}
	}
	for _, name := range p.Keep {
		if value, ok := parentVars[name]; ok {
			env[name] = value
		}
	}
	for _, name := range p.Remove {
		delete(env, name)
	}
	for _, nv := range set {
		env[nv[0]] = nv[1]
	}
	env[protocol.EnvFD] = fmt.Sprint(childFD)
	delete(env, EnvRun) // an enclosing run's (Inherit): the spawn sets this run's

	out := make([]string, 0, len(env))
	for name, value := range env {
		out = append(out, name+"="+value)
	}
	slices.Sort(out)
	return out, nil
}

// descriptorEnv fixes the variables naming inherited descriptors: no
// protocol.EnvFD for a plain program, protocol.EnvRecordFD only with a record file
// (an enclosing run's, inherited, would name a descriptor the child does
// not have). env stays sorted.
func descriptorEnv(env []string, program, recordFile bool) []string {
	out := env[:0:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == protocol.EnvRecordFD || (program && name == protocol.EnvFD) {
			continue
		}
		out = append(out, kv)
	}
	if recordFile {
		fd := childFD + 1
		if program {
			fd = childFD
		}
		out = append(out, fmt.Sprintf("%s=%d", protocol.EnvRecordFD, fd))
		slices.Sort(out)
	}
	return out
}

// describe names the policy and the variables it touches, never a value:
// "strict", or "inherit", followed by " keep=A,B", " remove=C", " set=D".
func (p *EnvPolicy) describe() string {
	s := "strict"
	if p.Inherit {
		s = "inherit"
	}
	list := func(label string, names []string) {
		if len(names) == 0 {
			return
		}
		names = slices.Clone(names)
		slices.Sort(names)
		s += " " + label + "=" + strings.Join(slices.Compact(names), ",")
	}
	list("keep", p.Keep)
	list("remove", p.Remove)
	setNames := make([]string, 0, len(p.Set))
	for _, kv := range p.Set {
		name, _, _ := strings.Cut(kv, "=")
		setNames = append(setNames, name)
	}
	list("set", setNames)
	return s
}

// namesHash returns the first 16 hex digits of the SHA-256 of the sorted,
// newline-terminated variable names of env. Values never enter it, so a
// shared report cannot be used to confirm a guessed secret.
func namesHash(env []string) string {
	names := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		names = append(names, name)
	}
	slices.Sort(names)
	h := sha256.New()
	for _, n := range slices.Compact(names) {
		h.Write([]byte(n))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
