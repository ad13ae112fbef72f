package supervisor

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"
)

// answers remembers what the go command answered, so that a run whose
// inputs did not change asks it nothing it already answered: `go env`,
// the package listings, and whether a cached test binary is current
// (docs/design.md#remembered-answers). A warm run of a one-benchmark
// module spent half its CPU in those four go commands.
//
// An answer is kept with the identity (device, inode, size, mode,
// modification and change times) of every input it depends on, and is
// given again only while every one is the same: the go command's binary,
// its configuration file, go.mod and go.work wherever the go command
// looks for them, every listed package's directory and each of its
// files, the directories a "..." pattern walks, the module files of every
// module not in the module cache, the C compiler the go command would
// find; the question itself (arguments, directory) and the environment
// the go command reads are its key. As the go command's module index
// does, it trusts the module cache and a release toolchain's GOROOT not
// to change under a version, and keeps nothing when an input changed in
// the two seconds before the question (a timestamp's granularity can be
// that coarse). It keeps nothing either when the user's flags bring in
// files it cannot follow (-overlay, -toolexec, -modfile, a -pgo profile),
// a listing has an error (what is missing cannot be watched), or a test
// binary links cgo (headers outside the package).
type answers struct {
	dir   *heldDir // the records, in the cache (userCache.answers); nil remembers nothing
	env   []string // the environment the go command reads, sorted
	goBin string   // the go command as exec finds it, "" when it cannot be found
	// now is the clock the cutoff compares inputs with; tests move it.
	now func() time.Time
}

// answerCutoff is how recent a change to an input may be for the answer
// to be kept: the go command's module index uses the same (modTimeCutoff).
const answerCutoff = 2 * time.Second

// maxAnswer bounds an answer kept (a listing of a large workspace).
const maxAnswer = 64 << 20

// answerRecordAge is how long an answer unused is kept.
const answerRecordAge = 14 * 24 * time.Hour

// answerRecordName is the name answers gives its records: only such files
// are read or removed.
var answerRecordName = regexp.MustCompile(`^[0-9a-f]{64}\.answer$`)

// goEnvRead is the environment the go command reads: its own variables,
// cgo's, the tools it runs and where it finds its files.
var goEnvRead = []string{"AR", "CC", "CXX", "FC", "GCCGO", "PKG_CONFIG", "HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "PATH", "PWD"}

func goEnvVar(kv string) bool {
	name, _, _ := strings.Cut(kv, "=")
	return strings.HasPrefix(name, "GO") || strings.HasPrefix(name, "CGO_") || slices.Contains(goEnvRead, name)
}

// newAnswers returns the answers kept in cache for goCommand run with
// this process's environment; a nil cache remembers nothing.
func newAnswers(cache *userCache, goCommand string) *answers {
	a := &answers{now: time.Now}
	if cache != nil && runtime.GOOS == "linux" { // elsewhere no change times to trust (answers_other.go)
		a.dir = cache.answers
	}
	for _, kv := range os.Environ() {
		if goEnvVar(kv) {
			a.env = append(a.env, kv)
		}
	}
	slices.Sort(a.env)
	if p, err := exec.LookPath(goCommand); err == nil {
		a.goBin, _ = filepath.Abs(p)
	}
	return a
}

// clock is the time a question is asked, as remember's cutoff reads it.
func (a *answers) clock() time.Time {
	if a == nil || a.now == nil {
		return time.Now()
	}
	return a.now()
}

// input is one file or directory an answer depends on.
type input struct {
	path  string
	scope dirScope // what of a directory counts (a file's is its own)
	// binary: the test binary the go command made current, held open
	// (hold), path naming its place in the cache; its identity is its
	// size and Go build ID, which the linker derives from its content,
	// read through the descriptor, and it is exempt from the cutoff (it
	// is the answer's own output). The binary of a recall is the one the
	// run seeded from the cache and would execute.
	binary *os.File
}

// A record file is the JSON of its inputs ([]recordedInput) on one line,
// then the answer as the go command printed it.

type recordedInput struct {
	Path   string
	Scope  dirScope `json:",omitempty"`
	Binary bool     `json:",omitempty"`
	ID     string   // identity; "" absent
	// Sum is the input's content (contentSum), "" where only ID can
	// stand for it: an input whose ID changed is the same input still
	// when its content is (a fresh clone or checkout of the same tree,
	// files rewritten as they were), as the go command's own cache keys
	// on content.
	Sum string `json:",omitempty"`
}

// dirScope says which of a directory's entries make its identity. A
// directory's own modification time is never part of it: it changes with
// every file written there (a --json=run.json, a log), and the go command
// reads only the files buildFile names, so a run's output beside a
// package's sources would make every answer about it stale.
type dirScope int

const (
	// scopeSelf is a file's own identity; for a directory (walked for
	// "...", or above a package in its module), the names of its
	// subdirectories, build files, go.mod and go.work: a package or a
	// module appears or goes there, or a subdirectory to walk.
	scopeSelf dirScope = iota
	// scopeBuild is a package's directory: its build files' identities,
	// and its go.mod's and go.work's.
	scopeBuild
	// scopeAll is a directory below a package with embedded files,
	// which a pattern may match whatever its name: every entry's
	// identity.
	scopeAll
)

// buildFile reports whether the go command may read a file of this name
// when it builds the package of its directory: Go, cgo, assembly, SWIG and
// system object sources (go/build's list), never a name it ignores.
func buildFile(name string) bool {
	if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
		return false
	}
	switch filepath.Ext(name) {
	case ".go", ".c", ".cc", ".cxx", ".cpp", ".m", ".s", ".S", ".sx", ".h", ".hh", ".hpp", ".hxx",
		".f", ".F", ".for", ".f90", ".swig", ".swigcxx", ".syso":
		return true
	}
	return false
}

// question is the key of an answer: the go command's arguments (anything
// naming a run's own scratch files replaced by what it holds), the
// directory it runs in and the environment it reads.
func (a *answers) key(dir string, args []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "answer 2\x00%s\x00%s\x00", a.goBin, dir)
	for _, s := range args {
		fmt.Fprintf(h, "%d:%s\x00", len(s), s)
	}
	for _, kv := range a.env {
		fmt.Fprintf(h, "%d:%s\x00", len(kv), kv)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// recall returns the answer kept for the question, if every input it
// depends on is as it was.
func (a *answers) recall(dir string, args []string) ([]byte, bool) {
	return a.recallOf(dir, args, nil)
}

// recallOf is recall of a question of go test -c, asked of the binary
// bin, held open (nil for any other question).
func (a *answers) recallOf(dir string, args []string, bin *os.File) ([]byte, bool) {
	if a == nil || a.dir == nil || a.goBin == "" {
		return nil, false
	}
	r := a.dir.root
	name := a.key(dir, args) + ".answer"
	data, ok := readRecord(r, name)
	if !ok {
		return nil, false
	}
	head, answer, ok := bytes.Cut(data, []byte("\n"))
	var inputs []recordedInput
	if !ok || json.Unmarshal(head, &inputs) != nil || len(inputs) == 0 {
		return nil, false
	}
	refresh := false
	for k, in := range inputs {
		i := input{path: in.Path, scope: in.Scope}
		if in.Binary {
			if bin == nil {
				return nil, false
			}
			i.binary = bin
		}
		id, changed, err := identity(i)
		if err != nil {
			return nil, false
		}
		if id == in.ID {
			continue
		}
		if in.Sum == "" {
			return nil, false
		}
		if sum, err := contentSum(i); err != nil || sum != in.Sum {
			return nil, false
		}
		// The same content under a new identity: kept under the new
		// one, where it changed before the cutoff, so that the next
		// recall need not read it again.
		if changed.Before(a.clock().Add(-answerCutoff)) {
			inputs[k].ID, refresh = id, true
		}
	}
	if refresh {
		if head, err := json.Marshal(inputs); err == nil {
			a.writeRecord(name, slices.Concat(head, []byte("\n"), answer))
		}
	}
	// A hit's time becomes now: records are removed by when they were
	// last used (answerRecordAge).
	now := time.Now()
	_ = r.Chtimes(name, now, now)
	return answer, true
}

// writeRecord writes a record aside and renames it into place: a
// concurrent run reads the old record or the new one, never part of one.
func (a *answers) writeRecord(name string, data []byte) {
	r := a.dir.root
	tmp := fmt.Sprintf("%s.%d.tmp", name, os.Getpid())
	if r.WriteFile(tmp, data, 0o600) != nil || r.Rename(tmp, name) != nil {
		_ = r.Remove(tmp)
	}
}

// remember keeps answer to the question, asked at asked, with the inputs it
// depends on (the base inputs are added). Nothing is kept when an input
// changed since asked-answerCutoff or cannot be read.
func (a *answers) remember(dir string, args []string, asked time.Time, answer []byte, inputs []input) {
	if a == nil || a.dir == nil || a.goBin == "" || len(answer) > maxAnswer {
		return
	}
	inputs = append(a.baseInputs(dir), inputs...)
	cutoff := asked.Add(-answerCutoff)
	var rec []recordedInput
	seen := map[input]bool{}
	for _, in := range inputs {
		if seen[in] {
			continue
		}
		seen[in] = true
		// The content first: a change after it read is then a change
		// after the cutoff, and nothing is kept.
		sum, err := contentSum(in)
		if err != nil {
			return
		}
		id, changed, err := identity(in)
		if err != nil || in.binary == nil && !changed.Before(cutoff) {
			return
		}
		rec = append(rec, recordedInput{Path: in.path, Scope: in.scope, Binary: in.binary != nil, ID: id, Sum: sum})
	}
	head, err := json.Marshal(rec)
	if err != nil {
		return
	}
	a.writeRecord(a.key(dir, args)+".answer", slices.Concat(head, []byte("\n"), answer))
	// Every edit leaves records behind; those unused for answerRecordAge go.
	_, _ = removeRecords(a.dir, answerRecordName, time.Now().Add(-answerRecordAge))
}

// readRecord reads the regular file name in r (never a link), of at
// most maxAnswer and its record around it.
func readRecord(r *os.Root, name string) ([]byte, bool) {
	fi, err := r.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > 2*maxAnswer {
		return nil, false
	}
	data, err := r.ReadFile(name)
	return data, err == nil
}

// baseInputs are what every answer depends on: the go command's binary,
// its configuration file, go.mod and go.work in dir and every directory
// above it (where the go command looks for them, and the toolchain line
// it may switch on), and the C compiler in each directory of PATH (cgo is
// on by default only where one is found).
func (a *answers) baseInputs(dir string) []input {
	in := []input{{path: a.goBin}}
	if real, err := filepath.EvalSymlinks(a.goBin); err == nil && real != a.goBin {
		in = append(in, input{path: real})
	}
	if f := goEnvFile(); f != "" {
		in = append(in, input{path: f})
	}
	for d := dir; ; d = filepath.Dir(d) {
		in = append(in, input{path: filepath.Join(d, "go.mod")}, input{path: filepath.Join(d, "go.work")})
		if filepath.Dir(d) == d {
			break
		}
	}
	cc := "gcc"
	if v := os.Getenv("CC"); v != "" {
		cc = strings.Fields(v + " x")[0]
	}
	if filepath.IsAbs(cc) {
		in = append(in, input{path: cc})
	} else if !strings.Contains(cc, string(filepath.Separator)) {
		for _, d := range filepath.SplitList(os.Getenv("PATH")) {
			if d == "" {
				d = "."
			}
			if p, err := filepath.Abs(filepath.Join(d, cc)); err == nil {
				in = append(in, input{path: p})
			}
		}
	}
	return in
}

// goEnvFile is the go command's configuration file (go env GOENV).
func goEnvFile() string {
	if v, ok := os.LookupEnv("GOENV"); ok {
		if v == "off" {
			return ""
		}
		return v
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "go", "env")
}

// identity is in's identity, and the latest modification time of any
// part of it; an absent path is an identity too ("").
func identity(in input) (id string, changed time.Time, err error) {
	if in.binary != nil {
		fi, err := in.binary.Stat()
		if err != nil {
			return "", time.Time{}, err
		}
		build, err := goBuildIDOf(in.binary)
		if err != nil {
			return "", time.Time{}, err
		}
		return fmt.Sprintf("%d %s", fi.Size(), build), time.Time{}, nil
	}
	fi, err := os.Lstat(in.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", time.Time{}, nil
		}
		return "", time.Time{}, err
	}
	if !fi.IsDir() {
		id, changed = fileIdentity(fi)
		return id, changed, nil
	}
	entries, err := os.ReadDir(in.path)
	if err != nil {
		return "", time.Time{}, err
	}
	h := sha256.New()
	fmt.Fprintf(h, "dir %d", in.scope)
	for _, e := range entries {
		name := e.Name()
		switch {
		case !in.counts(e):
			continue
		case in.scope == scopeSelf:
			fmt.Fprintf(h, "\x00%s\x00%t", name, e.IsDir())
			continue
		}
		efi, err := e.Info()
		if err != nil {
			return "", time.Time{}, err
		}
		eid, ech := fileIdentity(efi)
		fmt.Fprintf(h, "\x00%s\x00%s", name, eid)
		if ech.After(changed) {
			changed = ech
		}
	}
	return hex.EncodeToString(h.Sum(nil)), changed, nil
}

// counts reports whether the entry e of the directory in is part of its
// identity (dirScope).
func (in input) counts(e fs.DirEntry) bool {
	name := e.Name()
	switch in.scope {
	case scopeAll:
		return true
	case scopeSelf:
		if e.IsDir() {
			return true
		}
	}
	// A go.mod or go.work makes a module of the directory.
	return buildFile(name) || name == "go.mod" || name == "go.work"
}

// maxSummed bounds a file contentSum reads; a larger one is known by its
// identity alone.
const maxSummed = 64 << 20

// contentSum is in's identity by content: a regular file's digest, or a
// directory's counted entries (dirScope) with their digests. It is "" where
// the identity must stand alone: absent, a link or another special file, a
// directory of scopeSelf (whose identity is its names already), the test
// binary (whose identity is its build ID), a file past maxSummed.
func contentSum(in input) (string, error) {
	if in.binary != nil {
		return "", nil
	}
	fi, err := os.Lstat(in.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", nil
	case err != nil:
		return "", err
	case fi.Mode().IsRegular():
		return fileSum(in.path, fi.Size())
	case !fi.IsDir() || in.scope == scopeSelf:
		return "", nil
	}
	entries, err := os.ReadDir(in.path)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "sum dir %d", in.scope)
	for _, e := range entries {
		if !in.counts(e) {
			continue
		}
		if !e.Type().IsRegular() {
			return "", nil
		}
		efi, err := e.Info()
		if err != nil {
			return "", err
		}
		sum, err := fileSum(filepath.Join(in.path, e.Name()), efi.Size())
		if err != nil || sum == "" {
			return "", err
		}
		fmt.Fprintf(h, "\x00%s\x00%s", e.Name(), sum)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// fileSum is the digest of the regular file at path, of the size Lstat
// gave; "" past maxSummed.
func fileSum(path string, size int64) (string, error) {
	if size > maxSummed {
		return "", nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxSummed+1)); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// answerDir is the directory the go command runs in, as answers key it.
func (s *supervisor) answerDir() string {
	dir, err := filepath.Abs(s.cfg.Dir)
	if err != nil {
		return ""
	}
	return dir
}

// question is args as answers key them: the run's own overlay file, at a
// new path every run, named by the digest of what it places where.
func (s *supervisor) question(args []string) []string {
	q := slices.Clone(args)
	for i, a := range q {
		if s.overlay != "" && s.inj != nil && a == "-overlay="+s.overlay {
			q[i] = "-overlay-digest=" + s.inj.digest
		}
	}
	return q
}

// answersFollow reports whether answers can follow every file the go
// command reads for this run's flags: not those named by -overlay,
// -toolexec, -modfile or a -pgo profile, in the build flags or GOFLAGS.
func (s *supervisor) answersFollow(goflags string) bool {
	for _, f := range slices.Concat(s.buildFlags(), strings.Fields(goflags)) {
		name, val, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		switch name {
		case "overlay", "toolexec", "modfile":
			return false
		case "pgo":
			if val != "auto" && val != "off" {
				return false
			}
		}
	}
	return true
}

// envInputs are what go env's answer depends on beyond the base inputs:
// the workspace file GOWORK names.
func envInputs(e goEnv) []input {
	if e.GOWORK == "" || e.GOWORK == "off" {
		return nil
	}
	return []input{{path: e.GOWORK}, {path: filepath.Join(filepath.Dir(e.GOWORK), "go.work.sum")}}
}

// maxWalkedDirs bounds the directories a "..." pattern's inputs walk.
const maxWalkedDirs = 20000

// listingInputs are what a listing of patterns depends on beyond the base
// inputs (see answers), and whether it can be kept at all: every listed
// package's directory with its files, and the directories between it and
// its module's root (a go.mod there makes it another module's); the
// module files of every module outside the module cache; the workspace
// file; every directory a "..." pattern walks. Standard packages of a
// release toolchain and module-cache packages cannot change. only, when
// not nil, are the import paths of the listed packages that count (a
// test binary's).
func (s *supervisor) listingInputs(l *listing, patterns, only []string) ([]input, bool) {
	var in []input
	seen := map[string]bool{}
	add := func(i input) {
		if k := fmt.Sprint(i); !seen[k] {
			seen[k] = true
			in = append(in, i)
		}
	}
	inModCache := func(dir string) bool {
		return s.env.GOMODCACHE != "" && strings.HasPrefix(dir, s.env.GOMODCACHE+string(filepath.Separator))
	}
	release := !strings.Contains(s.env.GOVERSION, "devel")
	for _, pat := range patterns {
		switch {
		case pat == "all" || pat == "std" || pat == "cmd" || pat == "tool" || pat == "work":
			return nil, false
		case !strings.Contains(pat, "..."):
		case strings.HasPrefix(pat, ".") || filepath.IsAbs(pat):
			root, _, _ := strings.Cut(pat, "...")
			if !strings.HasSuffix(root, "/") {
				root = filepath.Dir(root) // ./foo... matches ./foobar too
			}
			dirs, ok := walkedDirs(filepath.Join(s.answerDir(), root))
			if !ok {
				return nil, false
			}
			for _, d := range dirs {
				add(input{path: d})
			}
		default:
			return nil, false // an import-path pattern: where it may match is not watched
		}
	}
	pkgs := slices.Collect(maps.Values(l.byPath))
	if only != nil {
		pkgs = pkgs[:0]
		for _, path := range only {
			p := l.byPath[path]
			if p == nil {
				return nil, false
			}
			pkgs = append(pkgs, p)
		}
	}
	for _, p := range pkgs {
		if p.Error != nil {
			return nil, false
		}
		for _, m := range []*goModule{p.Module, p.Module.replacement()} {
			if m == nil || m.GoMod == "" || inModCache(m.GoMod) {
				continue
			}
			add(input{path: m.GoMod})
			add(input{path: filepath.Join(filepath.Dir(m.GoMod), "go.sum")})
			add(input{path: filepath.Join(filepath.Dir(m.GoMod), "vendor", "modules.txt")})
		}
		if p.Standard && release || p.Dir == "" && strings.HasSuffix(p.ImportPath, ".test") || inModCache(p.Dir) {
			continue
		}
		if p.Dir == "" {
			return nil, false
		}
		add(input{path: p.Dir, scope: scopeBuild})
		if root := p.Module.dir(); root != "" {
			for d := filepath.Dir(p.Dir); strings.HasPrefix(d, root) && d != filepath.Dir(d); d = filepath.Dir(d) {
				add(input{path: d})
				if d == root {
					break
				}
			}
		}
		if len(p.EmbedFiles)+len(p.TestEmbedFiles)+len(p.XTestEmbedFiles) > 0 {
			// An embedded pattern may match a file added anywhere below.
			dirs, ok := walkedDirs(p.Dir)
			if !ok {
				return nil, false
			}
			for _, d := range dirs {
				add(input{path: d, scope: scopeAll})
			}
		}
	}
	in = append(in, envInputs(s.env)...)
	return in, true
}

// usesCgo reports whether a package of paths (a binary's packages) outside
// the standard library has cgo files, whose C headers may sit anywhere: a
// binary linking one is never known current without the go command. A
// package the listing does not hold counts as one. Only the binary's own
// packages count: a cgo package elsewhere in the module (a common sight)
// leaves the other binaries' answers kept.
func (l *listing) usesCgo(paths []string) bool {
	for _, path := range paths {
		p := l.byPath[path]
		if p == nil || !p.Standard && len(p.CgoFiles) > 0 {
			return true
		}
	}
	return false
}

// walkedDirs returns root and every directory below it the go command
// walks for a "..." pattern (not those named .x, _x or testdata; never
// through a link), or false when there are too many to watch.
func walkedDirs(root string) ([]string, bool) {
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root {
			if n := d.Name(); strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata" {
				return filepath.SkipDir
			}
		}
		if dirs = append(dirs, path); len(dirs) > maxWalkedDirs {
			return errTooManyDirs
		}
		return nil
	})
	return dirs, err == nil
}

var errTooManyDirs = errors.New("too many directories to watch")
