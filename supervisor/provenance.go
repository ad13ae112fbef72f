package supervisor

import (
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/benchsup/benchsup/rundoc"
)

// listedFacts are the facts of root's test build as a go list of that
// build reports them.
func listedFacts(l *listing, root *goPackage, toolchain string) rundoc.BuildFacts {
	mods := l.modules(root)
	f := rundoc.BuildFacts{BuildList: hashLines(mods), Modules: len(mods), Toolchain: toolchain}
	if lp := l.byPath[root.ImportPath]; lp != nil && lp.Module != nil {
		f.GoLine = lp.Module.GoVersion
	}
	if main := l.testMain(root); main != nil {
		f.DefaultGODEBUG = main.DefaultGODEBUG
	}
	return f
}

// measuredFacts are the facts of the measured build: the go line and the
// build list as go list reports them with benchsup's overlay, the GODEBUG
// default and toolchain from the binary's own build information, and a
// note naming any module the binary links that the listing does not.
func measuredFacts(l *listing, root *goPackage, binary string) (rundoc.BuildFacts, string) {
	f := listedFacts(l, root, "")
	info, err := buildinfo.ReadFile(binary)
	if err != nil {
		return f, fmt.Sprintf("reading the test binary's build information: %v", err)
	}
	f.Toolchain = info.GoVersion
	f.DefaultGODEBUG = ""
	for _, s := range info.Settings {
		if s.Key == "DefaultGODEBUG" {
			f.DefaultGODEBUG = s.Value
		}
	}
	if missing := unlisted(l.modules(root), info.Deps); len(missing) > 0 {
		return f, "the binary links modules go list does not name: " + strings.Join(missing, ", ")
	}
	return f, ""
}

// unlisted returns the modules among deps (a binary's build information)
// that listed (go list's lines, as listing.modules writes them) does not
// name. The go command writes "(devel)" in build information for a module
// or replacement without a version (a directory replacement, a workspace
// module), where go list reports none; that is read back as no version.
// Since go1.27 a test binary's build information names the modules of the
// test's own imports too (before, only those of the package under test),
// so a directory replacement a test imports shows it.
func unlisted(listed []string, deps []*debug.Module) []string {
	version := func(v string) string {
		if v == "(devel)" {
			return ""
		}
		return v
	}
	var missing []string
	for _, d := range deps {
		m := &goModule{Path: d.Path, Version: version(d.Version)}
		if r := d.Replace; r != nil {
			m.Replace = &goModule{Path: r.Path, Version: version(r.Version)}
		}
		if line := moduleLine(m); !slices.Contains(listed, line) {
			missing = append(missing, line)
		}
	}
	return missing
}

// moduleLine is how a module of a build list is named and compared: its
// path and version, and its replacement's.
func moduleLine(m *goModule) string {
	line := m.Path + " " + m.Version
	if r := m.Replace; r != nil {
		line += " => " + r.Path + " " + r.Version
	}
	return strings.TrimSpace(line)
}

// compareBuilds says whether two builds agree on every fact, and if not,
// what differs.
func compareBuilds(plain, measured rundoc.BuildFacts) (bool, string) {
	var diffs []string
	diff := func(what, a, b string) {
		if a != b {
			diffs = append(diffs, fmt.Sprintf("%s %s => %s", what, orNone(a), orNone(b)))
		}
	}
	diff("go line", plain.GoLine, measured.GoLine)
	diff("build list", fmt.Sprintf("%s (%d modules)", plain.BuildList, plain.Modules), fmt.Sprintf("%s (%d modules)", measured.BuildList, measured.Modules))
	diff("GODEBUG default", plain.DefaultGODEBUG, measured.DefaultGODEBUG)
	diff("toolchain", plain.Toolchain, measured.Toolchain)
	return len(diffs) == 0, strings.Join(diffs, "; ")
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// hashLines is "sha256:" and the hex digest of lines, each ended by a
// newline.
func hashLines(lines []string) string {
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
