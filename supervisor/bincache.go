package supervisor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The go command relinks a test binary unless the -o target already holds
// an up-to-date one (it compares build IDs), and linking dominates a warm
// build. So a per-user cache keeps test binaries under a name that every
// input of the build decides. A run links (or copies) the cached binary
// into its own private directory, where the go command writes its -o and
// finds it current, and puts a binary the go command made anew into the
// cache the same way: the go command never writes to a path in the cache,
// and what a run executes is the file it checked there, held open (see
// hold). The cache and every directory above it were checked once, without
// following a link, and are used through their descriptors from then on
// (openTrusted): another user who owns or may write one of them (a HOME
// in their directory) has the cache refused, and one who replaces a
// directory after the check changes nothing a run reads or executes.

// binCacheMaxAge is how long an unused cached binary is kept.
const binCacheMaxAge = 7 * 24 * time.Hour

// DefaultCacheMax is the size the test-binary cache is trimmed to after a
// run's builds when BENCHSUP_CACHE_MAX does not say otherwise.
const DefaultCacheMax int64 = 1 << 30

// Environment variables that place and bound the cache, as GOCACHE places
// the go command's.
const (
	CacheEnv    = "BENCHSUP_CACHE"     // the cache's root directory, or "off"
	CacheMaxEnv = "BENCHSUP_CACHE_MAX" // the test-binary cache's size cap, as 512MiB or 2GiB
)

// ErrCacheOff is the cache disabled by BENCHSUP_CACHE=off.
var ErrCacheOff = errors.New(CacheEnv + "=off: the cache is disabled")

// CacheDir returns benchsup's cache root: $BENCHSUP_CACHE, which must be
// absolute, or benchsup under os.UserCacheDir. Test binaries are kept in
// its testbin directory.
func CacheDir() (string, error) {
	if v := os.Getenv(CacheEnv); v != "" {
		switch {
		case v == "off":
			return "", ErrCacheOff
		case !filepath.IsAbs(v):
			return "", fmt.Errorf("%s=%s is not an absolute path", CacheEnv, v)
		}
		return filepath.Clean(v), nil
	}
	root, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory: %w (set %s)", err, CacheEnv)
	}
	return filepath.Join(root, "benchsup"), nil
}

// CacheMax returns the test-binary cache's size cap: $BENCHSUP_CACHE_MAX
// or DefaultCacheMax.
func CacheMax() (int64, error) {
	v := os.Getenv(CacheMaxEnv)
	if v == "" {
		return DefaultCacheMax, nil
	}
	n, err := parseSize(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%s: %w", CacheMaxEnv, v, err)
	}
	return n, nil
}

// parseSize reads a size as --memory-limit does: a whole number of bytes,
// or of K, M, G, T (KiB, MiB, GiB, TiB: powers of 1024).
func parseSize(v string) (int64, error) {
	digits := strings.TrimRightFunc(v, func(r rune) bool { return r < '0' || r > '9' })
	shift, ok := map[string]uint{"": 0, "K": 10, "KiB": 10, "M": 20, "MiB": 20, "G": 30, "GiB": 30, "T": 40, "TiB": 40}[v[len(digits):]]
	n, err := strconv.ParseInt(digits, 10, 64)
	if !ok || err != nil || n <= 0 || n > math.MaxInt64>>shift {
		return 0, errors.New("want a positive size such as 512MiB, 2GiB or 1048576 (bytes)")
	}
	return n << shift, nil
}

// heldDir is a directory benchsup uses through its descriptor: one it
// reuses between runs, found trustworthy by openTrusted, or the run's own
// directory of test binaries. Everything read, written, linked or
// executed there goes through dir (openat, linkat) or root (listing,
// removal), never through path again; path names it in messages and
// records, and is a path without links.
type heldDir struct {
	path string
	dir  *os.File
	root *os.Root
}

func (d *heldDir) close() {
	if d != nil {
		d.dir.Close()
		d.root.Close()
	}
}

// userCache is benchsup's cache as a run holds it: its root and the
// directories in it, each walked and checked (openTrusted) once, then held
// for the whole run (docs/design.md#containment).
type userCache struct {
	root    *heldDir
	bin     *heldDir // test binaries and their layout records (layout.go)
	vet     *heldDir // clean vet steps (vet.go)
	answers *heldDir // the go command's answers (answers.go)
	rev     *heldDir // --against exports (revcache.go)
}

// The directories in the cache root.
const (
	binSubdir     = "testbin"
	vetSubdir     = "vet"
	answersSubdir = "answers"
	revSubdir     = "rev"
)

func (c *userCache) close() {
	if c != nil {
		for _, d := range []*heldDir{c.bin, c.vet, c.answers, c.rev, c.root} {
			d.close()
		}
	}
}

// openUserCache walks to the cache root and opens the directories in it,
// making what is missing (0700) when create; without create, a directory
// that does not exist is nil (and a root that does not exist is an error
// wrapping fs.ErrNotExist). The root and the directories in it are
// benchsup's own: no link, writable by no other user.
func openUserCache(root string, create bool) (*userCache, error) {
	r, err := openTrusted(root, 1, create)
	if err != nil {
		return nil, err
	}
	c := &userCache{root: r}
	for _, sub := range []struct {
		name string
		d    **heldDir
	}{{binSubdir, &c.bin}, {vetSubdir, &c.vet}, {answersSubdir, &c.answers}, {revSubdir, &c.rev}} {
		d, err := r.sub(sub.name, create)
		if errors.Is(err, fs.ErrNotExist) && !create {
			continue
		}
		if err != nil {
			c.close()
			return nil, err
		}
		*sub.d = d
	}
	return c, nil
}

// testHookCacheChecked, when set, runs once a run has checked and opened
// its cache, before anything uses it: tests replace the cache there.
var testHookCacheChecked func()

// openRunCache opens the cache for a run: nil when the cache is off or
// the user has no cache directory; nil and a one-line note, for the run
// to print, when the directory is not one benchsup trusts (another user
// owns or may write it or a directory above it, a link leads there, it
// cannot be made) and the run builds in its private directory instead;
// an error when BENCHSUP_CACHE or BENCHSUP_CACHE_MAX is malformed.
func openRunCache() (*userCache, string, error) {
	if _, err := CacheMax(); err != nil {
		return nil, "", err
	}
	root, err := CacheDir()
	if errors.Is(err, ErrCacheOff) || (err != nil && os.Getenv(CacheEnv) == "") {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", err
	}
	c, err := openUserCache(root, true)
	if err != nil {
		// The binaries are executed, as root too: a cache another user
		// can replace (sudo keeping a user's $HOME, a $XDG_CACHE_HOME in
		// their directory) would run what that user put there.
		return nil, fmt.Sprintf("the cache %s is not used: %v; this run builds in its private directory (set %s to a directory only this user or root can write, or to off)", root, err, CacheEnv), nil
	}
	if testHookCacheChecked != nil {
		testHookCacheChecked()
	}
	return c, "", nil
}

// binCacheKey names the cached binary of one build: the directory the go
// command runs in, the package and its build's variant, the go command's
// environment (go env
// -json: GOFLAGS, GOOS, GOARCH, CGO settings, the toolchain, ...) and the
// content the overlay places.
func binCacheKey(runDir, importPath, variant string, goEnv []byte, overlayDigest string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", runDir, importPath, variant, overlayDigest)
	h.Write(goEnv)
	name := filepath.Base(importPath)
	if name == "." || name == "/" || strings.ContainsAny(name, `\:`) {
		name = "pkg"
	}
	return name + "-" + hex.EncodeToString(h.Sum(nil))[:20] + ".test"
}

// testBinary is a test binary a run built and checked, held open from
// the check to every exec of it (sandbox.Config.Executable): the file
// checked is the file executed.
type testBinary struct {
	path   string   // in the run's directory of binaries: argv[0], the name rows show
	file   *os.File // opened there without following a link
	cached string   // the same binary in the cache, "" when it is not kept there
}

// runBins is the run's directory of test binaries (its scratch
// directory's bin, 0700), held once made, and every binary held open, all
// closed with the run.
type runBins struct {
	once  sync.Once
	dir   *heldDir
	err   error
	mu    sync.Mutex
	files []*os.File
	also  []*runBins // an --against revision's (against.go)
}

// scratchBins returns the run's directory of test binaries, making it
// on first use.
func (s *supervisor) scratchBins() (*heldDir, error) {
	b := &s.bins
	b.once.Do(func() {
		path := filepath.Join(s.tmp, "bin")
		if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			b.err = err
			return
		}
		b.dir, b.err = holdPath(path)
	})
	return b.dir, b.err
}

func (b *runBins) keep(f *os.File) {
	b.mu.Lock()
	b.files = append(b.files, f)
	b.mu.Unlock()
}

func (b *runBins) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, f := range b.files {
		f.Close()
	}
	for _, o := range b.also {
		o.close()
	}
	b.files, b.also = nil, nil
	b.dir.close()
}

// cachePath is where the cache keeps the binary key.
func (s *supervisor) cachePath(key string) string {
	if s.cache == nil || s.cache.bin == nil {
		return ""
	}
	return filepath.Join(s.cache.bin.path, key)
}

// seed links (or, across file systems, copies) the cached binary key into
// the run's directory bins as name, so that the go command, comparing
// build IDs, finds it current there and leaves it. It returns what name
// is then, or nil when the cache holds no binary of key this user owns.
// The go command replaces an output it rebuilds (rename, or remove and
// create), so the cached file is never written through the link.
func (s *supervisor) seed(bins *heldDir, key, name string) os.FileInfo {
	_ = bins.root.Remove(name) // a build of this run before (layout.go's second padding)
	if s.cache == nil || s.cache.bin == nil || key == "" {
		return nil
	}
	c := s.cache.bin
	f, err := c.openIn(key)
	if err != nil {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || ownedFile(fi, 0) != nil {
		return nil
	}
	if fi.Mode().Perm() != 0o700 {
		_ = f.Chmod(0o700) // an older benchsup's, 0755
	}
	// Used now, before the go command finds it up to date: another
	// run's trim spares it (see pruneBinCache).
	now := time.Now()
	_ = c.root.Chtimes(key, now, now)
	if c.linkInto(key, bins, name) != nil && copyInto(f, bins, name) != nil {
		return nil
	}
	out, err := bins.root.Lstat(name)
	if err != nil {
		return nil
	}
	return out
}

// copyInto copies src into d as name, a new file of mode 0700.
func copyInto(src *os.File, d *heldDir, name string) error {
	fi, err := src.Stat()
	if err != nil {
		return err
	}
	dst, err := d.createIn(name, 0o700)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, io.NewSectionReader(src, 0, fi.Size()))
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = d.root.Remove(name)
	}
	return err
}

// hold opens the binary at name in the run's directory bins, checks it
// and returns it held: a regular file of this user, with one link unless
// it is the cached binary seed put there (linked into the cache, and
// perhaps into other runs), made 0700. A new binary is put into the cache
// as key (keep).
func (s *supervisor) hold(bins *heldDir, name, key string, seeded os.FileInfo) (*testBinary, error) {
	f, err := bins.openIn(name)
	if err != nil {
		return nil, fmt.Errorf("the test binary: %w", err)
	}
	fi, err := f.Stat()
	same := err == nil && seeded != nil && os.SameFile(fi, seeded)
	if err == nil {
		links := uint64(1)
		if same {
			links = 0
		}
		err = ownedFile(fi, links)
	}
	if err == nil && fi.Mode().Perm() != 0o700 {
		err = f.Chmod(0o700)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("the test binary %s: %w", f.Name(), err)
	}
	tb := &testBinary{path: filepath.Join(bins.path, name), file: f}
	switch {
	case key == "" || s.cachePath(key) == "":
	case same || s.keepBinary(f, bins, name, key):
		tb.cached = s.cachePath(key)
	}
	return tb, nil
}

// keepSeq makes the names keepBinary writes aside unique in the process.
var keepSeq atomic.Uint64

// keepBinary puts the checked binary f, name in bins, into the cache as
// key: linked (or copied) beside its name and renamed onto it, so that a
// concurrent run finds the old binary or the new one, never a part.
func (s *supervisor) keepBinary(f *os.File, bins *heldDir, name, key string) bool {
	c := s.cache.bin
	tmp := fmt.Sprintf("%s.%d%d.tmp", key, os.Getpid(), keepSeq.Add(1))
	if bins.linkInto(name, c, tmp) != nil && copyInto(f, c, tmp) != nil {
		return false
	}
	if c.root.Rename(tmp, key) != nil {
		_ = c.root.Remove(tmp)
		return false
	}
	return true
}

// buildVia builds p's test binary as go test -c does, with overlay ("":
// go test's own build), into name in the run's directory, through the
// cache's binary key when there is a cache ("" keeps none), and returns
// it held (hold).
func (s *supervisor) buildVia(ctx context.Context, p *pkgPlan, key, name, overlay string) (*testBinary, error) {
	bins, err := s.scratchBins()
	if err != nil {
		return nil, err
	}
	return s.buildSeeded(ctx, p, bins, key, name, overlay, s.seed(bins, key, name))
}

// buildSeeded is buildVia once name is seeded (seeded: what seed
// returned).
func (s *supervisor) buildSeeded(ctx context.Context, p *pkgPlan, bins *heldDir, key, name, overlay string, seeded os.FileInfo) (*testBinary, error) {
	if err := s.goTestC(ctx, p, filepath.Join(bins.path, name), overlay); err != nil {
		return nil, err
	}
	tb, err := s.hold(bins, name, key, seeded)
	if err == nil {
		s.bins.keep(tb.file)
	}
	return tb, err
}

// cachedName is the name binCacheKey gives: only such files are
// benchsup's to remove.
var cachedName = regexp.MustCompile(`-[0-9a-f]{20}\.test$`)

// layoutRecordName is the name of a binary's layout record (layout.go),
// or of one a run was writing; keepingName a binary keepBinary was
// putting into the cache (left behind by a run killed meanwhile).
var (
	layoutRecordName = regexp.MustCompile(`-[0-9a-f]{20}\.test\.layout(\.[0-9]+\.tmp)?$`)
	keepingName      = regexp.MustCompile(`-[0-9a-f]{20}\.test\.[0-9]+\.tmp$`)
)

// keepingAge is how old a binary written aside must be for a trim to
// take it as left behind.
const keepingAge = time.Hour

// cachedBinary is one file in the cache: a test binary or a vet record.
type cachedBinary struct {
	name string
	size int64
	used time.Time // its modification time: seed sets it on every use
}

// listCached returns the regular files in r whose names match name (the
// names benchsup gives them: test binaries, vet records), least recently
// used first.
func listCached(r *os.Root, name *regexp.Regexp) ([]cachedBinary, error) {
	return listMatching(r, name, fs.FileMode.IsRegular)
}

// listMatching returns the entries of r whose names match name and whose
// type want accepts (never a link: entries are Lstat'ed), least recently
// used first.
func listMatching(r *os.Root, name *regexp.Regexp, want func(fs.FileMode) bool) ([]cachedBinary, error) {
	f, err := r.Open(".")
	if err != nil {
		return nil, err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return nil, err
	}
	var bins []cachedBinary
	for _, n := range names {
		if !name.MatchString(n) {
			continue
		}
		fi, err := r.Lstat(n)
		if err != nil || !want(fi.Mode()) {
			continue
		}
		bins = append(bins, cachedBinary{n, fi.Size(), fi.ModTime()})
	}
	slices.SortFunc(bins, func(a, b cachedBinary) int { return a.used.Compare(b.used) })
	return bins, nil
}

// pruneBinCache removes the cached binaries of d unused for
// binCacheMaxAge, then the least recently used ones until the rest fit in
// max bytes. Binaries used since keep (this run's, and a concurrent run's)
// stay even beyond max: another process may be about to link them. Only
// regular files named as binCacheKey names them are removed, through the
// held directory, never through a link.
func pruneBinCache(d *heldDir, now time.Time, max int64, keep time.Time) {
	if d == nil {
		return
	}
	r := d.root
	bins, err := listCached(r, cachedName)
	if err != nil {
		return
	}
	var total int64
	for _, b := range bins {
		total += b.size
	}
	for _, b := range bins {
		old := now.Sub(b.used) > binCacheMaxAge
		if !old && (total <= max || !b.used.Before(keep)) {
			continue
		}
		if r.Remove(b.name) == nil {
			total -= b.size
			_ = r.Remove(b.name + layoutRecordSuffix)
		}
	}
	if left, err := listCached(r, keepingName); err == nil {
		for _, b := range left {
			if now.Sub(b.used) > keepingAge {
				_ = r.Remove(b.name)
			}
		}
	}
}

// Cleaned is what CleanCache removed.
type Cleaned struct {
	Dir   string // the test-binary cache directory
	Files int
	Bytes int64
	// VetDir and VetRecords are the directory of remembered clean vet
	// steps (vet.go) and how many records were removed from it.
	VetDir     string
	VetRecords int
	// AnswersDir and Answers are the directory of the go command's
	// remembered answers (answers.go) and how many were removed from it.
	AnswersDir string
	Answers    int
	// RevDir and RevExports are the directory of kept --against
	// revisions (revcache.go) and how many were removed from it.
	RevDir     string
	RevExports int
}

// CleanCache removes every test binary from the cache, with the remembered
// vet steps, the go command's remembered answers and the kept --against
// revisions, as go clean -cache empties
// the go command's: only the regular files benchsup named there (and the
// directories of its exports), through the directories walked and checked
// as a run checks them (openTrusted), never through a link. A cache that
// does not exist is nothing removed; one another user owns or may write is
// left alone, with an error saying why.
func CleanCache() (Cleaned, error) {
	root, err := CacheDir()
	if err != nil {
		return Cleaned{}, err
	}
	c := Cleaned{Dir: filepath.Join(root, binSubdir), VetDir: filepath.Join(root, vetSubdir), AnswersDir: filepath.Join(root, answersSubdir), RevDir: filepath.Join(root, revSubdir)}
	uc, err := openUserCache(root, false)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("%w: left alone", err)
	}
	defer uc.close()
	if c.Files, c.Bytes, err = removeBinaries(uc.bin); err != nil {
		return c, err
	}
	if c.VetRecords, err = removeVetRecords(uc.vet, time.Time{}); err != nil {
		return c, err
	}
	if c.Answers, err = removeRecords(uc.answers, answerRecordName, time.Time{}); err != nil {
		return c, err
	}
	c.RevExports, err = removeRevExports(uc.rev)
	return c, err
}

// removeBinaries removes every test binary from the cache directory d,
// with the binaries' layout records (layout.go) and any a run left half
// written; a nil d holds none.
func removeBinaries(d *heldDir) (files int, bytes int64, err error) {
	if d == nil {
		return 0, 0, nil
	}
	bins, err := listCached(d.root, cachedName)
	if err != nil {
		return 0, 0, err
	}
	records, err := listCached(d.root, layoutRecordName)
	if err != nil {
		return 0, 0, err
	}
	left, err := listCached(d.root, keepingName)
	if err != nil {
		return 0, 0, err
	}
	return removeEntries(d.path, bins, slices.Concat(records, left), d.root.Remove)
}

// removeEntries removes the entries counted, then the entries extra, of
// dir with remove; it returns how many of counted it removed and their
// size, up to the first failure.
func removeEntries(dir string, counted, extra []cachedBinary, remove func(name string) error) (n int, size int64, err error) {
	for i, e := range slices.Concat(counted, extra) {
		if err := remove(e.name); err != nil {
			return n, size, fmt.Errorf("removing %s: %w", filepath.Join(dir, e.name), err)
		}
		if i < len(counted) {
			n++
			size += e.size
		}
	}
	return n, size, nil
}
