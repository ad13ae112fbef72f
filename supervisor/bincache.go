package supervisor

import (
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
	"time"
)

// The go command relinks a test binary unless the -o target already holds
// an up-to-date one (it compares build IDs), and linking dominates a warm
// build. So test binaries are linked into a per-user cache under a name
// that every input of the build decides, and each run hard-links (or
// copies) them into its own directory: a later run, or a concurrent one
// with other flags, can never replace a binary a run is executing.

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

// binCacheDir returns the cache directory for test binaries, "" when the
// cache is off, the user has no cache directory, or one another user
// could write (then every build links afresh), or an error when
// BENCHSUP_CACHE or BENCHSUP_CACHE_MAX is malformed.
func binCacheDir() (string, error) {
	if _, err := CacheMax(); err != nil {
		return "", err
	}
	root, err := CacheDir()
	if errors.Is(err, ErrCacheOff) || (err != nil && os.Getenv(CacheEnv) == "") {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "testbin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil
	}
	// The binaries are executed, as root too: a cache in a directory
	// another user owns or may write (sudo keeping a user's $HOME, a
	// $XDG_CACHE_HOME in /tmp) would let that user replace them.
	check := []string{root, dir}
	if os.Getenv(CacheEnv) == "" {
		check = append(check, filepath.Dir(root))
	}
	for _, d := range check {
		if !privateDir(d) {
			return "", nil
		}
	}
	return dir, nil
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

// useCached makes dst a link to (or a copy of) the cached binary src and
// marks src used now.
func useCached(src, dst string) error {
	now := time.Now()
	_ = os.Chtimes(src, now, now)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// cachedName is the name binCacheKey gives: only such files are
// benchsup's to remove.
var cachedName = regexp.MustCompile(`-[0-9a-f]{20}\.test$`)

// layoutRecordName is the name of a binary's layout record (layout.go),
// or of one a run was writing.
var layoutRecordName = regexp.MustCompile(`-[0-9a-f]{20}\.test\.layout(\.[0-9]+\.tmp)?$`)

// cachedBinary is one file in the cache: a test binary or a vet record.
type cachedBinary struct {
	name string
	size int64
	used time.Time // its modification time: useCached sets it on every use
}

// openBinCache opens the cache directory for removals. It refuses a link
// or a directory another user may write: removing goes through the
// returned root, which never follows a link out of the directory, and
// only regular files named as binCacheKey names them are listed, so that
// clean, as root on a shared host, removes nothing benchsup did not put
// there.
func openBinCache(dir string) (*os.Root, error) {
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory (%s): left alone", dir, fi.Mode().Type())
	}
	if !privateDir(dir) {
		return nil, fmt.Errorf("%s is owned or writable by another user: left alone", dir)
	}
	return os.OpenRoot(dir)
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

// pruneBinCache removes cached binaries unused for binCacheMaxAge, then
// the least recently used ones until the rest fit in max bytes. Binaries
// used since keep (this run's, and a concurrent run's) stay even beyond
// max: another process may be about to link them.
func pruneBinCache(dir string, now time.Time, max int64, keep time.Time) {
	_ = inCacheDir(dir, func(r *os.Root) error {
		bins, err := listCached(r, cachedName)
		if err != nil {
			return err
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
		return nil
	})
}

// cacheSubdir returns the directory name beside the test-binary cache
// binCache, made and private as it is, or "" for none.
func cacheSubdir(binCache, name string) string {
	if binCache == "" {
		return ""
	}
	dir := filepath.Join(filepath.Dir(binCache), name)
	if err := os.MkdirAll(dir, 0o700); err != nil || !privateDir(dir) {
		return ""
	}
	return dir
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
// the go command's: only the regular files benchsup named there,
// never through a link (see openBinCache). A cache that does not exist is
// nothing removed.
func CleanCache() (Cleaned, error) {
	root, err := CacheDir()
	if err != nil {
		return Cleaned{}, err
	}
	c := Cleaned{Dir: filepath.Join(root, "testbin"), VetDir: filepath.Join(root, "vet"), AnswersDir: filepath.Join(root, answersSubdir), RevDir: filepath.Join(root, "rev")}
	if c.Files, c.Bytes, err = removeBinaries(c.Dir); err != nil {
		return c, err
	}
	if c.VetRecords, err = removeVetRecords(c.VetDir, time.Time{}); err != nil {
		return c, err
	}
	if c.Answers, err = removeRecords(c.AnswersDir, answerRecordName, time.Time{}); err != nil {
		return c, err
	}
	c.RevExports, err = removeRevExports(c.RevDir)
	return c, err
}

// inCacheDir calls remove with a root of dir (see openBinCache); a dir
// that does not exist holds nothing to remove, and remove is not called.
func inCacheDir(dir string, remove func(r *os.Root) error) error {
	r, err := openBinCache(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer r.Close()
	return remove(r)
}

// removeBinaries removes every test binary from the cache dir, with the
// binaries' layout records (layout.go) and any a run left half written.
func removeBinaries(dir string) (files int, bytes int64, err error) {
	err = inCacheDir(dir, func(r *os.Root) error {
		bins, err := listCached(r, cachedName)
		if err != nil {
			return err
		}
		records, err := listCached(r, layoutRecordName)
		if err != nil {
			return err
		}
		files, bytes, err = removeEntries(dir, bins, records, r.Remove)
		return err
	})
	return files, bytes, err
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
