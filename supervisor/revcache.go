package supervisor

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
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

// revExportDir returns the directory the exports are kept in, beside the
// test-binary cache binCache and private as it is, or "" for none (no
// binary cache: each export is the run's own).
func revExportDir(binCache string) string { return cacheSubdir(binCache, "rev") }

// cachedExport returns the export of commit in dir, calling extract to
// write one when no run has.
func cachedExport(dir, commit string, extract func(root string) error) (string, error) {
	root := filepath.Join(dir, "commit-"+commit)
	if fi, err := os.Lstat(root); err == nil && fi.IsDir() {
		now := time.Now()
		_ = os.Chtimes(root, now, now) // used: pruneRevExports spares it
		return root, nil
	}
	tmp, err := os.MkdirTemp(dir, ".export-")
	if err != nil {
		return "", err
	}
	if err := extract(tmp); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.Rename(tmp, root); err != nil {
		os.RemoveAll(tmp)
		if fi, lerr := os.Lstat(root); lerr == nil && fi.IsDir() {
			return root, nil // a concurrent run's export of the same commit
		}
		return "", err
	}
	return root, nil
}

// pruneRevExports removes the exports unused for revExportMaxAge, and
// beyond the revExportsKept most recently used those unused for
// revExportBusy, and extractions a killed run left behind. It removes only
// directories named as cachedExport names them, through a root that never
// follows a link out of dir (see openBinCache).
func pruneRevExports(dir string, now time.Time) {
	_ = inCacheDir(dir, func(r *os.Root) error {
		exports, temps, err := listExports(r)
		if err != nil {
			return err
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
		return nil
	})
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

// removeRevExports removes every export from dir, for benchsup clean.
func removeRevExports(dir string) (n int, err error) {
	err = inCacheDir(dir, func(r *os.Root) error {
		exports, temps, err := listExports(r)
		if err != nil {
			return err
		}
		n, _, err = removeEntries(dir, exports, temps, r.RemoveAll)
		return err
	})
	return n, err
}
