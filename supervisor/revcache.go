package supervisor

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"
)

// The exports of --against revisions are kept beside the cached test
// binaries, one directory per commit. The go command keys a compiled
// package by its directory as well as its files, and benchsup keys a
// cached binary by the directory the go command runs in: a revision
// exported to a new directory each run was compiled and linked afresh each
// run, while the working tree, at the same path every run, was found up to
// date. An export is named by its commit, not its tree: git archive writes
// export-subst files with the commit's own data.
//
// An export appears complete or not at all: it is extracted beside its
// final name and renamed into place, and a run that finds the name taken
// (a concurrent run renamed its own export of the same commit first) uses
// that one. Builds only read an export; the children run in its package
// directories, as go test runs them, so a benchmark that writes files
// there leaves them for the next run against the commit, as it leaves
// them in the working tree for the next run of the tree.

// revExportMaxAge is how long an unused export is kept, as a binary is.
const revExportMaxAge = binCacheMaxAge

// revExportsKept is how many exports are kept, the most recently used
// ones, when more are younger than revExportMaxAge: each is a whole
// checkout of the repository, and a run compares with one or two commits.
// An export used in the last revExportBusy is kept beyond that count (a
// concurrent run may be building in it).
const (
	revExportsKept = 4
	revExportBusy  = time.Hour
)

// revExportName is an export's name; revExportTemp one being extracted
// (left behind by a run that was killed while extracting it).
var (
	revExportName = regexp.MustCompile(`^commit-[0-9a-f]{40}([0-9a-f]{24})?$`)
	revExportTemp = regexp.MustCompile(`^\.export-[0-9]+$`)
)

// revExportDir returns the directory the exports are kept in, in the
// cache and held as it is (userCache), or nil for none (no cache: each
// export is the run's own).
func revExportDir(c *userCache) *heldDir {
	if c == nil {
		return nil
	}
	return c.rev
}

// cachedExport returns the export of commit in dir, calling extract to
// write one when no run has. The export is found, marked used and renamed
// into place through the held directory; the go command and the children
// use it by its path, which has no link and is in directories only root
// or this user can write (openTrusted).
func cachedExport(dir *heldDir, commit string, extract func(root *os.Root) error) (string, error) {
	name := "commit-" + commit
	root := filepath.Join(dir.path, name)
	if fi, err := dir.root.Lstat(name); err == nil && fi.IsDir() {
		now := time.Now()
		_ = dir.root.Chtimes(name, now, now) // used: pruneRevExports spares it
		return root, nil
	}
	tmpName, tmp, err := mkdirTempIn(dir.root, ".export-")
	if err != nil {
		return "", err
	}
	err = extract(tmp)
	tmp.Close()
	if err != nil {
		_ = dir.root.RemoveAll(tmpName)
		return "", err
	}
	if err := dir.root.Rename(tmpName, name); err != nil {
		_ = dir.root.RemoveAll(tmpName)
		if fi, lerr := dir.root.Lstat(name); lerr == nil && fi.IsDir() {
			return root, nil // a concurrent run's export of the same commit
		}
		return "", err
	}
	return root, nil
}

// mkdirTempIn creates a new directory in parent, named prefix and a
// random number as os.MkdirTemp names it, and opens it as a root of its
// own: the extraction writes only beneath what was created, whatever
// becomes of the path.
func mkdirTempIn(parent *os.Root, prefix string) (string, *os.Root, error) {
	for range 100 {
		name := prefix + strconv.FormatUint(uint64(rand.Uint32()), 10)
		err := parent.Mkdir(name, 0o700)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", nil, err
		}
		r, err := parent.OpenRoot(name)
		if err != nil {
			_ = parent.Remove(name)
			return "", nil, err
		}
		return name, r, nil
	}
	return "", nil, fmt.Errorf("creating a directory %s* in %s: too many names taken", prefix, parent.Name())
}

// pruneRevExports removes the exports unused for revExportMaxAge, and
// beyond the revExportsKept most recently used those unused for
// revExportBusy, and extractions a killed run left behind. It removes only
// directories named as cachedExport names them, through the held
// directory, never through a link.
func pruneRevExports(dir *heldDir, now time.Time) {
	if dir == nil {
		return
	}
	r := dir.root
	exports, temps, err := listExports(r)
	if err != nil {
		return
	}
	slices.Reverse(exports) // most recently used first
	for i, e := range exports {
		idle := now.Sub(e.used)
		if idle > revExportMaxAge || (i >= revExportsKept && idle > revExportBusy) {
			_ = r.RemoveAll(e.name)
		}
	}
	for _, e := range temps {
		if now.Sub(e.used) > revExportBusy {
			_ = r.RemoveAll(e.name)
		}
	}
}

// listExports returns the exports in r, least recently used first, and the
// extractions under way or left behind.
func listExports(r *os.Root) (exports, temps []cachedBinary, err error) {
	if exports, err = listMatching(r, revExportName, fs.FileMode.IsDir); err != nil {
		return nil, nil, err
	}
	temps, err = listMatching(r, revExportTemp, fs.FileMode.IsDir)
	return exports, temps, err
}

// removeRevExports removes every export from dir, for benchsup clean; a
// nil dir holds none.
func removeRevExports(dir *heldDir) (n int, err error) {
	if dir == nil {
		return 0, nil
	}
	exports, temps, err := listExports(dir.root)
	if err != nil {
		return 0, err
	}
	n, _, err = removeEntries(dir.path, exports, temps, dir.root.RemoveAll)
	return n, err
}
