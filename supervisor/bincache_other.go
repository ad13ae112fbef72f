//go:build !linux

package supervisor

import "os"

// privateDir reports whether dir is a directory; off Linux, benchsup does
// not check who owns or may write it.
func privateDir(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}
