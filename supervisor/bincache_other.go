//go:build !linux

package supervisor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Off Linux benchsup runs no children (newSupervisor refuses), and only
// benchsup clean opens the cache: these check that a directory is one and
// not a link, but not who owns or may write it.

func openTrusted(path string, own int, create bool) (*heldDir, error) {
	if !filepath.IsAbs(path) {
		return nil, fmt.Errorf("%s is not an absolute path", path)
	}
	if create {
		if err := os.MkdirAll(path, 0o700); err != nil {
			return nil, err
		}
	}
	return holdPath(path)
}

func holdPath(path string) (*heldDir, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("unsafe path %s: found %v; it must be a directory", path, fi.Mode().Type())
	}
	dir, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(path)
	if err != nil {
		dir.Close()
		return nil, err
	}
	return &heldDir{path: path, dir: dir, root: root}, nil
}

func (d *heldDir) sub(name string, create bool) (*heldDir, error) {
	if create {
		if err := d.root.Mkdir(name, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			return nil, err
		}
	}
	return holdPath(filepath.Join(d.path, name))
}

func (d *heldDir) openIn(name string) (*os.File, error) {
	fi, err := d.root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", filepath.Join(d.path, name))
	}
	return d.root.Open(name)
}

func (d *heldDir) createIn(name string, perm os.FileMode) (*os.File, error) {
	return d.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
}

func (d *heldDir) linkInto(string, *heldDir, string) error { return errors.ErrUnsupported }

func ownedFile(fi os.FileInfo, _ uint64) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%v)", fi.Mode().Type())
	}
	return nil
}
