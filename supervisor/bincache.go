package supervisor

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// binCacheDir returns the cache directory for test binaries, or "" when
// the user has no cache directory, or one another user could write (then
// every build links afresh).
func binCacheDir() string {
	root, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	dir := filepath.Join(root, "benchsup", "testbin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	// The binaries are executed, as root too: a cache in a directory
	// another user owns or may write (sudo keeping a user's $HOME, a
	// $XDG_CACHE_HOME in /tmp) would let that user replace them.
	for _, d := range []string{root, filepath.Dir(dir), dir} {
		if !privateDir(d) {
			return ""
		}
	}
	return dir
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

// pruneBinCache removes cached binaries unused for binCacheMaxAge.
func pruneBinCache(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".test") {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > binCacheMaxAge {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
