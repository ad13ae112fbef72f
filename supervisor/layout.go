package supervisor

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Code layout (docs/design.md#layout). The injected worker adds code to
// the test binary, standard-library code among it, and the linker places
// the measured package's code after that: every function of the package then starts at another offset in its
// page and cache line than in go test's build, and loops of a few
// nanoseconds run faster or slower with their alignment alone. For a
// benchmark run, benchsup also builds the package's test binary as go test
// does, and when the package's first function sits at another offset
// modulo the page, builds its binary again with a padding package whose
// size puts it back at go test's offset (and with it everything the linker
// places after the padding in the same order).

const (
	layoutPage = 4096 // the offset kept: a page holds whole cache lines
	funcAlign  = 32   // the linker's function alignment on amd64 and arm64
	// padOverhead is what the padding package costs besides its functions:
	// its init function and the function keeping them live.
	padOverhead = 3 * funcAlign
)

// alignLayout compares measured with go test's build of p and, where p's
// code sits at another offset modulo layoutPage, rebuilds it padded. It
// returns the binary to run and what the document says of its layout,
// from the cache's record of an earlier run when measured is unchanged
// since (see layoutRecord).
func (s *supervisor) alignLayout(ctx context.Context, p *pkgPlan, b *build, index int, measured *testBinary) (*testBinary, string) {
	padName := fmt.Sprintf("%d-%s.pad.test", index, filepath.Base(p.pkg.ImportPath))
	var cache *heldDir
	if s.cache != nil {
		cache = s.cache.bin
	}
	if cache != nil {
		fetch := func(key string) *testBinary {
			bins, err := s.scratchBins()
			if err != nil {
				return nil
			}
			seeded := s.seed(bins, key, padName)
			if seeded == nil {
				return nil
			}
			tb, err := s.hold(bins, padName, key, seeded)
			if err != nil {
				return nil
			}
			s.bins.keep(tb.file)
			return tb
		}
		if bin, layout, ok := recallLayout(cache, measured, fetch); ok {
			return bin, layout
		}
	}
	bin, layout, settled := s.compareLayout(ctx, p, b, index, measured, padName)
	if cache != nil && settled {
		rememberLayout(cache, measured, bin, layout)
	}
	return bin, layout
}

// compareLayout builds go test's binary of p, compares, and pads. Its
// answer is settled when the binaries decided it; a build that failed or
// a binary that could not be read may do better next time.
func (s *supervisor) compareLayout(ctx context.Context, p *pkgPlan, b *build, index int, measured *testBinary, padName string) (bin *testBinary, layout string, settled bool) {
	plain, err := s.buildVia(ctx, p, s.cacheTarget(p, b, "plain", ""), fmt.Sprintf("%d-%s.plain.test", index, filepath.Base(p.pkg.ImportPath)), "")
	if err != nil {
		return measured, "not compared: go test's own build failed: " + firstLine(err.Error()), false
	}
	anchor, want, err := firstFunc(plain.file, p.pkg.ImportPath, "")
	if err != nil {
		return measured, "not compared: " + err.Error(), false
	}
	shift, err := layoutShift(want, measured, anchor)
	if err != nil {
		return measured, "not compared: " + err.Error(), false
	}
	if shift == 0 {
		return measured, fmt.Sprintf("%s at go test's offset modulo %d (no padding needed)", anchor, layoutPage), true
	}
	// Two tries: the padding package's own overhead is estimated the
	// first time and measured the second.
	pad, padded := 0, measured
	for try := 0; try < 2 && shift != 0; try++ {
		pad = (pad + layoutPage - shift) % layoutPage
		for pad < padOverhead {
			pad += layoutPage
		}
		units := (pad - padOverhead) / funcAlign
		overlay, digest, err := s.inj.padOverlay(p, index, units)
		if err != nil {
			// Without an injected worker no run can pad this build:
			// remembered, so that the next run spares go test's build.
			return measured, "not padded: " + err.Error(), errors.Is(err, errNoInjectedWorker)
		}
		if padded, err = s.buildVia(ctx, p, s.cacheTarget(p, b, fmt.Sprintf("pad %d", units), digest), padName, overlay); err != nil {
			return measured, "not padded: the padded build failed: " + firstLine(err.Error()), false
		}
		if shift, err = layoutShift(want, padded, anchor); err != nil {
			return measured, "not padded: " + err.Error(), false
		}
		pad = padOverhead + units*funcAlign
	}
	if shift != 0 {
		return measured, fmt.Sprintf("%s not at go test's offset modulo %d: %d bytes off after padding", anchor, layoutPage, shift), true
	}
	return padded, fmt.Sprintf("%s at go test's offset modulo %d (padded by %d bytes)", anchor, layoutPage, pad), true
}

// cacheTarget is the name the per-user cache keeps a variant of b's
// binary under (see build), "" without a cache.
func (s *supervisor) cacheTarget(p *pkgPlan, b *build, kind, overlayDigest string) string {
	if s.cache == nil {
		return ""
	}
	dir, _ := filepath.Abs(s.cfg.Dir)
	variant := b.variant + "\x00" + kind + "\x00" + strings.Join(s.buildFlags(), "\x00")
	return binCacheKey(dir, p.pkg.ImportPath, variant, s.env.raw, overlayDigest)
}

// layoutShift returns how far measured places the function anchor after
// want, its address in go test's build, modulo layoutPage.
func layoutShift(want uint64, measured *testBinary, anchor string) (int, error) {
	_, got, err := firstFunc(measured.file, "", anchor)
	if err != nil {
		return 0, err
	}
	return int((got - want) % layoutPage), nil
}

// firstFunc returns the lowest-addressed function of package pkg in the
// ELF binary bin, or the address of the function named want.
func firstFunc(bin *os.File, pkg, want string) (string, uint64, error) {
	f, err := elf.NewFile(bin)
	if err != nil {
		var fe *elf.FormatError
		if errors.As(err, &fe) {
			return "", 0, errors.New("not an ELF binary")
		}
		return "", 0, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return "", 0, fmt.Errorf("reading the symbols of %s: %w", filepath.Base(bin.Name()), err)
	}
	name, addr := "", uint64(0)
	for _, sym := range syms {
		if elf.ST_TYPE(sym.Info) != elf.STT_FUNC || sym.Value == 0 {
			continue
		}
		if want != "" {
			if sym.Name == want {
				return sym.Name, sym.Value, nil
			}
			continue
		}
		if rest, ok := strings.CutPrefix(sym.Name, pkg+"."); ok && rest != "" && (name == "" || sym.Value < addr) {
			name, addr = sym.Name, sym.Value
		}
	}
	if name == "" {
		if want != "" {
			return "", 0, fmt.Errorf("no function %s in %s", want, filepath.Base(bin.Name()))
		}
		return "", 0, fmt.Errorf("no function of %s in %s", pkg, filepath.Base(bin.Name()))
	}
	return name, addr, nil
}

// A layout record keeps, beside a measured binary of the per-user cache
// (its name and layoutRecordSuffix), what alignLayout found for it: a
// later run whose go test -c left that binary as it was (the same Go build
// ID, which the go command gives whatever its inputs make) takes the
// answer from the record, instead of building go test's binary and the
// padded one again: two of the three go commands a warm benchmark run
// starts per package. Only answers the binaries decide are kept.
const layoutRecordSuffix = ".layout"

type layoutRecord struct {
	BuildID string `json:"buildID"` // the measured binary's
	// Padded is the name, in the cache, of the padded binary to run, and
	// PaddedID its build ID; "" runs the measured binary itself.
	Padded   string `json:"padded,omitempty"`
	PaddedID string `json:"paddedID,omitempty"`
	Layout   string `json:"layout"`
}

// recallLayout returns the binary and layout the record beside the
// cached binary measured holds, when measured and the padded binary it
// names are still the binaries the record was made for; fetch seeds the
// padded binary from the cache into the run and holds it. The record and
// the binaries are read through the held directory and descriptors.
func recallLayout(cache *heldDir, measured *testBinary, fetch func(key string) *testBinary) (*testBinary, string, bool) {
	if measured.cached == "" || filepath.Dir(measured.cached) != cache.path {
		return nil, "", false
	}
	name := filepath.Base(measured.cached) + layoutRecordSuffix
	if fi, err := cache.root.Lstat(name); err != nil || !fi.Mode().IsRegular() {
		return nil, "", false
	}
	data, err := cache.root.ReadFile(name)
	if err != nil {
		return nil, "", false
	}
	var rec layoutRecord
	if json.Unmarshal(data, &rec) != nil || rec.BuildID == "" || rec.Layout == "" {
		return nil, "", false
	}
	if id, err := goBuildIDOf(measured.file); err != nil || id != rec.BuildID {
		return nil, "", false
	}
	if rec.Padded == "" {
		return measured, rec.Layout, true
	}
	if filepath.Base(rec.Padded) != rec.Padded || !cachedName.MatchString(rec.Padded) {
		return nil, "", false
	}
	padded := fetch(rec.Padded)
	if padded == nil {
		return nil, "", false
	}
	if id, err := goBuildIDOf(padded.file); err != nil || id != rec.PaddedID {
		return nil, "", false
	}
	return padded, rec.Layout, true
}

// rememberLayout writes the record of alignLayout's answer (bin, layout)
// for measured beside it in the cache; both must be kept there. A record
// that cannot be written is no record.
func rememberLayout(cache *heldDir, measured, bin *testBinary, layout string) {
	if measured.cached == "" || filepath.Dir(measured.cached) != cache.path ||
		(bin != measured && (bin.cached == "" || filepath.Dir(bin.cached) != cache.path)) {
		return
	}
	rec := layoutRecord{Layout: layout}
	var err error
	if rec.BuildID, err = goBuildIDOf(measured.file); err != nil {
		return
	}
	if bin != measured {
		rec.Padded = filepath.Base(bin.cached)
		if rec.PaddedID, err = goBuildIDOf(bin.file); err != nil {
			return
		}
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return
	}
	// Written aside and renamed: a concurrent run reads the old record
	// or the new one, never half of one.
	name := filepath.Base(measured.cached) + layoutRecordSuffix
	tmp := fmt.Sprintf("%s.%d.tmp", name, os.Getpid())
	if cache.root.WriteFile(tmp, data, 0o600) != nil || cache.root.Rename(tmp, name) != nil {
		_ = cache.root.Remove(tmp)
	}
}

// goBuildID returns the Go build ID the linker writes into an ELF binary
// (its .note.go.buildid note), the ID the go command compares to decide
// that a binary is up to date.
func goBuildID(bin string) (string, error) {
	f, err := os.Open(bin)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return goBuildIDOf(f)
}

// goBuildIDOf is goBuildID of the binary open as r.
func goBuildIDOf(r io.ReaderAt) (string, error) {
	f, err := elf.NewFile(r)
	if err != nil {
		return "", err
	}
	sec := f.Section(".note.go.buildid")
	if sec == nil {
		return "", errors.New("no Go build ID")
	}
	data, err := sec.Data()
	if err != nil {
		return "", err
	}
	// An ELF note: name size, description size, type, then the name
	// ("Go\x00\x00", padded to 4 bytes) and the description, the ID.
	if len(data) < 16 {
		return "", errors.New("short Go build ID note")
	}
	order := f.ByteOrder
	nameSize, descSize := order.Uint32(data[0:]), order.Uint32(data[4:])
	name := (uint64(nameSize) + 3) &^ 3
	if nameSize != 4 || !bytes.Equal(data[12:16], []byte("Go\x00\x00")) || 12+name+uint64(descSize) > uint64(len(data)) {
		return "", errors.New("malformed Go build ID note")
	}
	id := string(data[12+name : 12+name+uint64(descSize)])
	if id == "" {
		return "", errors.New("empty Go build ID")
	}
	return id, nil
}
