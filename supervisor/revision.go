package supervisor

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrNotGit says --against was given outside a git work tree.
var ErrNotGit = errors.New("not inside a git work tree")

// revisionTree is a git revision of the user's repository exported to a
// directory of its own: the repository's files as that commit has them,
// nothing of the user's working tree, index or branches touched.
type revisionTree struct {
	rev    string // as the user wrote it
	commit string // the full hash it resolved to
	root   string // the export's top-level directory
	// dir is the run's directory (Config.Dir, or the current directory)
	// at the same place inside the export.
	dir string
	// cached says the export is kept in the per-user cache, at the same
	// path for every run that exports the commit (revcache.go).
	cached bool
}

// exportRevision resolves rev in the repository holding dir and extracts
// that commit's files (`git archive`, read here: no tar binary needed):
// into the export of that commit kept in cache (see revcache.go) when
// cache is not nil, else under parent. Submodules are not part of a git
// archive; a revision whose packages need one fails to build with the go
// command's message.
func exportRevision(ctx context.Context, dir, rev, parent string, cache *heldDir) (*revisionTree, error) {
	abs, err := filepath.Abs(cmpOrDot(dir))
	if err != nil {
		return nil, err
	}
	top, err := gitOutput(ctx, abs, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("--against=%s: %w: %v", rev, ErrNotGit, err)
	}
	// rev-parse --verify with ^{commit} refuses anything that is not a
	// commit (a tree, a blob, a typo) with a clear message; the
	// end-of-options marker keeps a revision from being read as a flag.
	commit, err := gitOutput(ctx, abs, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("--against=%s: no such commit in %s", rev, top)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(top, real)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("--against=%s: %s is not inside the repository %s", rev, abs, top)
	}
	extract := func(root *os.Root) error { return archiveCommit(ctx, top, rev, commit, root) }
	var root string
	if cache != nil {
		root, err = cachedExport(cache, commit, extract)
	} else if root, err = os.MkdirTemp(parent, "rev-"); err == nil {
		var r *os.Root
		if r, err = os.OpenRoot(root); err == nil {
			err = extract(r)
			r.Close()
		}
	}
	if err != nil {
		return nil, err
	}
	return &revisionTree{rev: rev, commit: commit, root: root, dir: filepath.Join(root, rel), cached: cache != nil}, nil
}

// archiveCommit extracts commit's files, as git archive writes them in
// the repository top, into the directory root.
func archiveCommit(ctx context.Context, top, rev, commit string, root *os.Root) error {
	cmd := exec.CommandContext(ctx, "git", "archive", "--format=tar", commit)
	cmd.Dir = top
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("--against=%s: git archive: %w", rev, err)
	}
	xerr := extractTar(out, root)
	io.Copy(io.Discard, out) // let git finish writing if extraction stopped early
	if werr := cmd.Wait(); werr != nil {
		return fmt.Errorf("--against=%s: git archive: %v: %s", rev, werr, strings.TrimSpace(stderr.String()))
	}
	if xerr != nil {
		return fmt.Errorf("--against=%s: extracting the revision: %w", rev, xerr)
	}
	return nil
}

func cmpOrDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", errors.New(firstLine(msg))
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// extractTar writes the regular files, directories and symbolic links of
// a git archive under root, refusing any path that would leave it. Every
// entry is written through root, which resolves each name beneath it
// without following a link out of it (a committed link to /etc, then a
// file through it, is refused), whatever another process does to the
// directory's path meanwhile.
func extractTar(r io.Reader, root *os.Root) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.FromSlash(h.Name)
		if !filepath.IsLocal(name) {
			if h.Typeflag == tar.TypeXGlobalHeader {
				continue // git's pax header with the commit id
			}
			return fmt.Errorf("archive entry %q leaves the export directory", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := root.MkdirAll(name, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				return err
			}
			f, err := root.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_EXCL, os.FileMode(h.Mode)&0o755|0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
				return err
			}
			if err := root.Symlink(h.Linkname, name); err != nil {
				return err
			}
		case tar.TypeXGlobalHeader:
		default:
			return fmt.Errorf("archive entry %q has an unexpected type %q", h.Name, h.Typeflag)
		}
	}
}
