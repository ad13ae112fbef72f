//go:build !linux

package host

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// DefaultClaimDir is $BENCHSUP_CLAIM_DIR, else a directory under
// os.TempDir(); claims themselves are Linux-only for now.
func DefaultClaimDir() string {
	if d := os.Getenv(ClaimDirEnv); d != "" {
		return d
	}
	return filepath.Join(os.TempDir(), "benchsup-claim")
}

// Claim fails, wrapping errors.ErrUnsupported, off Linux.
func Claim(ctx context.Context, cfg ClaimConfig, waiting func(Holder)) (*HostClaim, error) {
	return nil, fmt.Errorf("host claim: %w: implemented for Linux only (this is %s)", errors.ErrUnsupported, runtime.GOOS)
}

// Release does nothing: no claim is held off Linux.
func (c *HostClaim) Release() error { return nil }
