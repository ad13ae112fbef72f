package sources

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The parsers of the files the window readers and the page-cache code read:
// pure functions, tested on recorded contents on any host. Each rejects
// malformed input with an error rather than guessing, and none panics on
// any input.

// parseSchedstat parses /proc/<pid>/task/<tid>/schedstat: "run wait
// timeslices\n", run and wait in ns. Kernels have printed three fields since
// 2.6; only the first two are needed, so a third is not required and more
// are tolerated.
func parseSchedstat(b []byte) (runNs, waitNs int64, err error) {
	f := bytes.Fields(b)
	if len(f) < 2 {
		return 0, 0, fmt.Errorf("schedstat: want at least 2 fields, got %q", b)
	}
	run, ok1 := parseInt63(f[0])
	wait, ok2 := parseInt63(f[1])
	if !ok1 || !ok2 {
		return 0, 0, fmt.Errorf("schedstat: malformed %q", b)
	}
	return run, wait, nil
}

// parseInt63 parses a decimal that fits an int64 without going negative.
func parseInt63(b []byte) (int64, bool) {
	n, ok := parseUint(b)
	if !ok || n > math.MaxInt64 {
		return 0, false
	}
	return int64(n), true
}

// parsePSI parses a pressure file (/proc/pressure/* or a cgroup's
// *.pressure):
//
//	some avg10=0.00 avg60=0.00 avg300=0.00 total=12345
//	full avg10=0.00 avg60=0.00 avg300=0.00 total=678
//
// and returns the totals converted from µs to ns. The "some" line is
// required. The "full" line is absent from cpu.pressure before Linux 5.13,
// so haveFull reports whether it was there; callers that need it check.
// Unknown line kinds and unknown keys are skipped, so that a future kernel
// still parses.
func parsePSI(b []byte) (someNs, fullNs int64, haveFull bool, err error) {
	var haveSome bool
	for _, line := range bytes.Split(b, []byte("\n")) {
		f := bytes.Fields(line)
		if len(f) == 0 {
			continue
		}
		kind := string(f[0])
		if kind != "some" && kind != "full" {
			continue
		}
		if (kind == "some" && haveSome) || (kind == "full" && haveFull) {
			return 0, 0, false, fmt.Errorf("pressure: two %q lines", kind)
		}
		total, found := int64(0), false
		for _, kv := range f[1:] {
			v, ok := bytes.CutPrefix(kv, []byte("total="))
			if !ok {
				continue
			}
			us, ok := parseInt63(v)
			if !ok || us > math.MaxInt64/1000 {
				return 0, 0, false, fmt.Errorf("pressure: %s line: malformed total %q", kind, v)
			}
			total, found = us*1000, true
		}
		if !found {
			return 0, 0, false, fmt.Errorf("pressure: %s line has no total=: %q", kind, line)
		}
		if kind == "some" {
			someNs, haveSome = total, true
		} else {
			fullNs, haveFull = total, true
		}
	}
	if !haveSome {
		return 0, 0, false, fmt.Errorf("pressure: no \"some\" line in %q", b)
	}
	return someNs, fullNs, haveFull, nil
}

// cgroup2Mount is one cgroup2 mount from /proc/self/mountinfo: where it is
// mounted and which directory of the hierarchy appears there ("/" unless it
// is a bind mount of a subtree).
type cgroup2Mount struct {
	root, point string
}

// parseMountinfoCgroup2 returns the cgroup2 mounts listed in a
// /proc/<pid>/mountinfo, in file order. Lines are
//
//	id parent major:minor root mount-point options [optional...] - fstype source super-options
//
// with spaces and other specials in paths escaped as \ooo octal. A line that
// does not have that shape is an error: the file is the kernel's, and a
// misparse would send the reader to the wrong directory.
func parseMountinfoCgroup2(b []byte) ([]cgroup2Mount, error) {
	var mounts []cgroup2Mount
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Fields(line)
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if len(f) < 6 || sep < 0 || sep+1 >= len(f) {
			return nil, fmt.Errorf("mountinfo: malformed line %q", line)
		}
		if f[sep+1] != "cgroup2" {
			continue
		}
		root, err1 := unescapeMountinfo(f[3])
		point, err2 := unescapeMountinfo(f[4])
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("mountinfo: line %q: %v", line, err)
		}
		mounts = append(mounts, cgroup2Mount{root: root, point: point})
	}
	return mounts, nil
}

// unescapeMountinfo undoes the kernel's \ooo escaping of mountinfo paths
// (space, tab, newline, backslash).
func unescapeMountinfo(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			out.WriteByte(s[i])
			continue
		}
		if i+4 > len(s) {
			return "", fmt.Errorf("truncated escape in %q", s)
		}
		n, err := strconv.ParseUint(s[i+1:i+4], 8, 8)
		if err != nil {
			return "", fmt.Errorf("bad escape in %q", s)
		}
		out.WriteByte(byte(n))
		i += 3
	}
	return out.String(), nil
}

// parseProcCgroupV2 returns this process's cgroup2 path from
// /proc/<pid>/cgroup: the "0::/path" line (the v1 hierarchies have other
// ids). ok is false when there is no such line, i.e. the process is not in
// a cgroup2 hierarchy at all.
func parseProcCgroupV2(b []byte) (path string, ok bool, err error) {
	for _, line := range strings.Split(string(b), "\n") {
		rest, found := strings.CutPrefix(line, "0::")
		if !found {
			continue
		}
		if !strings.HasPrefix(rest, "/") {
			return "", false, fmt.Errorf("cgroup: malformed v2 line %q", line)
		}
		return rest, true, nil
	}
	return "", false, nil
}

// cgroupDir joins the cgroup2 path of a process to the mount that shows it.
// A mount whose root is a subtree shows only the cgroups below that root;
// mounts of the whole hierarchy are preferred. ok is false when no mount
// shows the path.
func cgroupDir(mounts []cgroup2Mount, path string) (string, bool) {
	for _, m := range mounts {
		if m.root == "/" {
			return strings.TrimSuffix(m.point, "/") + path, true
		}
	}
	for _, m := range mounts {
		if path == m.root {
			return m.point, true
		}
		if rest, ok := strings.CutPrefix(path, m.root+"/"); ok {
			return strings.TrimSuffix(m.point, "/") + "/" + rest, true
		}
	}
	return "", false
}

// parseCapEff returns the effective capability set from a
// /proc/<pid>/status ("CapEff:\t000001ffffffffff").
func parseCapEff(b []byte) (uint64, error) {
	for _, line := range strings.Split(string(b), "\n") {
		v, ok := strings.CutPrefix(line, "CapEff:")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		if err != nil {
			return 0, fmt.Errorf("status: malformed CapEff %q", v)
		}
		return n, nil
	}
	return 0, errors.New("status: no CapEff line")
}
