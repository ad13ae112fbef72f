package analysis

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"
)

// The package's other tests may declare -update too; registering it twice
// panics, so this file looks it up rather than owning it.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata/")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func el(key, value, dup string) Element { return Element{Key: key, Value: value, Dup: dup} }

func TestParseName(t *testing.T) {
	tests := []struct {
		name string
		want Name
	}{
		{"BenchmarkTopN", Name{Function: "BenchmarkTopN"}},
		{"BenchmarkCount/size=1KiB", Name{"BenchmarkCount", []Element{el("size", "1KiB", "")}, 0}},
		{"BenchmarkOrder/EuropeanNumber/1000", Name{"BenchmarkOrder", []Element{el("", "EuropeanNumber", ""), el("", "1000", "")}, 0}},
		{"BenchmarkDecode/spec-1.1.0", Name{"BenchmarkDecode", []Element{el("", "spec-1.1.0", "")}, 0}},
		// No suffix outside result lines: "-4" and "-2" are the element's.
		{"BenchmarkEdge/size-4", Name{"BenchmarkEdge", []Element{el("", "size-4", "")}, 0}},
		{"BenchmarkTopN-2", Name{Function: "BenchmarkTopN-2"}},
		{"BenchmarkEdge/expr=a=b", Name{"BenchmarkEdge", []Element{el("expr", "a=b", "")}, 0}},
		{"BenchmarkEdge/key=", Name{"BenchmarkEdge", []Element{el("key", "", "")}, 0}},
		{"BenchmarkEdge/=bare", Name{"BenchmarkEdge", []Element{el("", "=bare", "")}, 0}},
		{"BenchmarkEdge/dup#01", Name{"BenchmarkEdge", []Element{el("", "dup", "#01")}, 0}},
		{"BenchmarkEdge/dup#01#01", Name{"BenchmarkEdge", []Element{el("", "dup#01", "#01")}, 0}},
		{"BenchmarkEdge/dup#100", Name{"BenchmarkEdge", []Element{el("", "dup", "#100")}, 0}},
		{"BenchmarkEdge/#00", Name{"BenchmarkEdge", []Element{el("", "", "#00")}, 0}},
		{"BenchmarkEdge/#01", Name{"BenchmarkEdge", []Element{el("", "", "#01")}, 0}},
		{"BenchmarkGrid/impl=crc/n=8#01", Name{"BenchmarkGrid", []Element{el("impl", "crc", ""), el("n", "8", "#01")}, 0}},
		{"BenchmarkDeep/a#01/b#01/c=1", Name{"BenchmarkDeep", []Element{el("", "a", "#01"), el("", "b", "#01"), el("c", "1", "")}, 0}},
		// Not suffixes testing writes: "#00" after a sub-name, one digit,
		// leading zeros beyond two, signs, counts past int32.
		{"BenchmarkEdge/x#00", Name{"BenchmarkEdge", []Element{el("", "x#00", "")}, 0}},
		{"BenchmarkEdge/#7", Name{"BenchmarkEdge", []Element{el("", "#7", "")}, 0}},
		{"BenchmarkEdge/#007", Name{"BenchmarkEdge", []Element{el("", "#007", "")}, 0}},
		{"BenchmarkEdge/x#+1", Name{"BenchmarkEdge", []Element{el("", "x#+1", "")}, 0}},
		{"BenchmarkEdge/x#2147483648", Name{"BenchmarkEdge", []Element{el("", "x#2147483648", "")}, 0}},
		{"BenchmarkEdge/x#2147483647", Name{"BenchmarkEdge", []Element{el("", "x", "#2147483647")}, 0}},
		{"BenchmarkEdge/k=#01", Name{"BenchmarkEdge", []Element{el("k", "", "#01")}, 0}},
		{"BenchmarkEdge/trailing/", Name{"BenchmarkEdge", []Element{el("", "trailing", ""), el("", "", "")}, 0}},
		{"BenchmarkEdge//x", Name{"BenchmarkEdge", []Element{el("", "", ""), el("", "x", "")}, 0}},
		{"BenchmarkEdge/é/ü=日本", Name{"BenchmarkEdge", []Element{el("", "é", ""), el("ü", "日本", "")}, 0}},
		{"BenchmarkEdge/bell\\a", Name{"BenchmarkEdge", []Element{el("", "bell\\a", "")}, 0}},
		{"", Name{}},
		{"/", Name{"", []Element{el("", "", "")}, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ParseName(tt.name)
			if !equalNames(got, tt.want) {
				t.Errorf("ParseName(%q) = %#v, want %#v", tt.name, got, tt.want)
			}
			if s := got.String(); s != tt.name {
				t.Errorf("ParseName(%q).String() = %q", tt.name, s)
			}
		})
	}
}

// equalNames compares names treating nil and empty Elements alike.
func equalNames(a, b Name) bool {
	return a.Function == b.Function && a.Procs == b.Procs && slices.Equal(a.Elements, b.Elements)
}

func TestParseResultName(t *testing.T) {
	tests := []struct {
		name      string
		procs     int
		wantProcs int
		wantRest  string // the name without the suffix read
	}{
		{"BenchmarkTopN-2", 2, 2, "BenchmarkTopN"},
		{"BenchmarkTopN-2", 0, 2, "BenchmarkTopN"},
		{"BenchmarkTopN-2", 4, 0, "BenchmarkTopN-2"}, // not a line testing wrote at 4
		{"BenchmarkTopN", 1, 1, "BenchmarkTopN"},
		{"BenchmarkTopN", 0, 0, "BenchmarkTopN"},
		{"BenchmarkTopN", 4, 0, "BenchmarkTopN"},
		{"BenchmarkDecode/spec-1.1.0-2", 0, 2, "BenchmarkDecode/spec-1.1.0"},
		{"BenchmarkDecode/spec-1.1.0", 0, 0, "BenchmarkDecode/spec-1.1.0"},
		// An element ending in "-N": exact when P is known, misread when not.
		{"BenchmarkEdge/size-4", 1, 1, "BenchmarkEdge/size-4"},
		{"BenchmarkEdge/size-4", 0, 4, "BenchmarkEdge/size"},
		{"BenchmarkEdge/size-4-4", 4, 4, "BenchmarkEdge/size-4"},
		{"BenchmarkEdge/size-4-4", 0, 4, "BenchmarkEdge/size-4"},
		{"BenchmarkEdge/n=-4", 1, 1, "BenchmarkEdge/n=-4"},
		// testing never writes -1, -0 or a leading zero.
		{"BenchmarkEdge/size-1", 0, 0, "BenchmarkEdge/size-1"},
		{"BenchmarkEdge/size-0", 0, 0, "BenchmarkEdge/size-0"},
		{"BenchmarkEdge/size-04", 0, 0, "BenchmarkEdge/size-04"},
		{"BenchmarkEdge/size-1-1", 0, 0, "BenchmarkEdge/size-1-1"},
		{"BenchmarkEdge/x-99999999999999999999", 0, 0, "BenchmarkEdge/x-99999999999999999999"},
		{"BenchmarkTopN-", 0, 0, "BenchmarkTopN-"},
		{"-4", 0, 0, "-4"},
		{"-4", 4, 0, "-4"},
		{"BenchmarkGrid/impl=crc/n=8#01-4", 4, 4, "BenchmarkGrid/impl=crc/n=8#01"},
		{"BenchmarkX-128", 128, 128, "BenchmarkX"},
		{"BenchmarkX-128", -1, 128, "BenchmarkX"}, // negative: unknown
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s@%d", tt.name, tt.procs), func(t *testing.T) {
			got := ParseResultName(tt.name, tt.procs)
			if got.Procs != tt.wantProcs {
				t.Errorf("Procs = %d, want %d", got.Procs, tt.wantProcs)
			}
			rest := got
			rest.Procs = 0
			if !equalNames(rest, ParseName(tt.wantRest)) {
				t.Errorf("ParseResultName(%q, %d) = %#v, want the name %q", tt.name, tt.procs, got, tt.wantRest)
			}
			if s := got.String(); s != tt.name {
				t.Errorf("String() = %q, want %q", s, tt.name)
			}
		})
	}
}

func TestValueIndex(t *testing.T) {
	n := ParseName("BenchmarkHash/impl=fnv/EuropeanNumber/n=1024#01/impl=xxh/expr=a=b")
	tests := []struct {
		key   string
		index int
		value string
	}{
		{"impl", 0, "fnv"}, // the first, as benchproc's "/impl"
		{"n", 2, "1024"},
		{"expr", 4, "a=b"},
		{"EuropeanNumber", -1, ""}, // bare elements have no key
		{"", -1, ""},
		{"size", -1, ""},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if i := n.Index(tt.key); i != tt.index {
				t.Errorf("Index(%q) = %d, want %d", tt.key, i, tt.index)
			}
			v, ok := n.Value(tt.key)
			if v != tt.value || ok != (tt.index >= 0) {
				t.Errorf("Value(%q) = %q, %v, want %q, %v", tt.key, v, ok, tt.value, tt.index >= 0)
			}
		})
	}
}

func TestFamily(t *testing.T) {
	tests := []struct {
		name string
		i    int
		want string
	}{
		{"BenchmarkHash/impl=fnv/n=1024", 1, "BenchmarkHash/impl=fnv/n=*"},
		{"BenchmarkHash/impl=fnv/n=1024", 0, "BenchmarkHash/impl=*/n=1024"},
		{"BenchmarkOrder/EuropeanNumber/1000", 1, "BenchmarkOrder/EuropeanNumber/*"},
		{"BenchmarkGrid/impl=crc/n=8#01", 1, "BenchmarkGrid/impl=crc/n=*"},
		{"BenchmarkDeep/a#01/b/c=1", 2, "BenchmarkDeep/a#01/b/c=*"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s@%d", tt.name, tt.i), func(t *testing.T) {
			if got := ParseName(tt.name).Family(tt.i); got != tt.want {
				t.Errorf("Family(%d) = %q, want %q", tt.i, got, tt.want)
			}
		})
	}
	t.Run("procs kept", func(t *testing.T) {
		if got, want := ParseResultName("BenchmarkCount/size=1KiB-2", 2).Family(0), "BenchmarkCount/size=*-2"; got != want {
			t.Errorf("Family(0) = %q, want %q", got, want)
		}
	})
	t.Run("does not modify the name", func(t *testing.T) {
		n := ParseName("BenchmarkHash/impl=fnv/n=1024")
		n.Family(1)
		if s := n.String(); s != "BenchmarkHash/impl=fnv/n=1024" {
			t.Errorf("after Family: %q", s)
		}
	})
}

func TestGroupBy(t *testing.T) {
	names := []string{
		"BenchmarkGrid/impl=fnv/n=8",
		"BenchmarkGrid/impl=fnv/n=1024",
		"BenchmarkGrid/impl=xxh/n=8",
		"BenchmarkGrid/impl=xxh/n=1024",
		"BenchmarkGrid/impl=crc/n=8",
		"BenchmarkGrid/impl=crc/n=8#01",
		"BenchmarkGrid",
		"BenchmarkGrid/impl=fnv",
		"BenchmarkOther/n=8",
		"BenchmarkGrid/n=8/impl=fnv", // same key, other position: another family
	}
	parsed := make([]Name, len(names))
	for i, s := range names {
		parsed[i] = ParseName(s)
	}
	tests := []struct {
		key  string
		want []Siblings
	}{
		{"impl", []Siblings{
			{"BenchmarkGrid/impl=*/n=8", []int{0, 2, 4}},
			{"BenchmarkGrid/impl=*/n=1024", []int{1, 3}},
			{"BenchmarkGrid/impl=*/n=8#01", []int{5}},
			{"BenchmarkGrid/impl=*", []int{7}},
			{"BenchmarkGrid/n=8/impl=*", []int{9}},
		}},
		{"n", []Siblings{
			{"BenchmarkGrid/impl=fnv/n=*", []int{0, 1}},
			{"BenchmarkGrid/impl=xxh/n=*", []int{2, 3}},
			{"BenchmarkGrid/impl=crc/n=*", []int{4, 5}}, // one value twice: the caller refuses it
			{"BenchmarkOther/n=*", []int{8}},
			{"BenchmarkGrid/n=*/impl=fnv", []int{9}},
		}},
		{"size", nil},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			got := GroupBy(parsed, tt.key)
			if !slices.EqualFunc(got, tt.want, func(a, b Siblings) bool {
				return a.Family == b.Family && slices.Equal(a.Members, b.Members)
			}) {
				t.Errorf("GroupBy(%q) = %v, want %v", tt.key, got, tt.want)
			}
		})
	}
}

// TestAgainstTesting checks the parser against the testing package of the
// toolchain that runs it: the names its subtests get, rewrites and
// de-duplication included.
func TestAgainstTesting(t *testing.T) {
	subs := []string{
		"simple iteration", "tab\there", "nbsp\u00a0thin\u2009space", "ideographic\u3000space",
		"bell\a", "nul\x00", "é", "日本", "ü=日本", "expr=a=b", "key=", "=bare",
		"dup", "dup", "dup", "dup#01", "", "", "n=8", "n=8", "#00", "#7", "x#007", "size-4", "size-1",
	}
	for _, sub := range subs {
		t.Run(sub, func(t *testing.T) {
			full := t.Name()
			n := ParseName(full)
			if n.Function != "TestAgainstTesting" || len(n.Elements) != 1 {
				t.Fatalf("ParseName(%q) = %#v, want one element under TestAgainstTesting", full, n)
			}
			e := n.Elements[0]
			if e.Dup == "" {
				if got := e.String(); got != SubName(sub) {
					t.Errorf("testing named %q %q; SubName gives %q", sub, got, SubName(sub))
				}
			} else if e.Dup != "#00" && strings.TrimSuffix(e.String(), e.Dup) != SubName(sub) {
				t.Errorf("testing named %q %q: not SubName %q with a #NN suffix", sub, e, SubName(sub))
			}
			if s := n.String(); s != full {
				t.Errorf("String() = %q, want %q", s, full)
			}
		})
	}
}

func TestSubName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"simple iteration", "simple_iteration"},
		{"a\tb\nc", "a_b_c"},
		{"\u2009\u3000\u0085", "___"},
		{"bell\a", `bell\a`},
		{"nul\x00", `nul\x00`},
		{"\u200b", `\u200b`}, // zero width space: not white space to testing, not printable
		{"日本/é=1", "日本/é=1"},
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := SubName(tt.in); got != tt.want {
				t.Errorf("SubName(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// procsOf reads the -test.cpu entry a testdata file was recorded with
// from its name: "xxhash.cpu2.txt" ran at GOMAXPROCS 2.
var procsOf = regexp.MustCompile(`\.cpu(\d+)\.txt$`)

// TestRealNames parses the names of real runs (testdata/names/README
// says where each comes from), read with benchfmt as benchstat reads
// them, and keeps what it makes of them as a golden file.
func TestRealNames(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "names", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata/names/*.txt: %v", err)
	}
	var golden bytes.Buffer
	for _, file := range files {
		m := procsOf.FindStringSubmatch(file)
		if m == nil {
			t.Fatalf("%s: want a name ending in .cpuP.txt", file)
		}
		procs, _ := strconv.Atoi(m[1])
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&golden, "# %s\n", filepath.Base(file))
			r := benchfmt.NewReader(bytes.NewReader(data), file)
			count := 0
			var names []Name
			for r.Scan() {
				res, ok := r.Result().(*benchfmt.Result)
				if !ok {
					continue
				}
				count++
				full := "Benchmark" + res.Name.String()
				n := ParseResultName(full, procs)
				checkRealName(t, full, procs, n, res)
				names = append(names, n)
				fmt.Fprintf(&golden, "%s\t%s\n", full, describe(n, ParseResultName(full, 0)))
			}
			if err := r.Err(); err != nil {
				t.Fatal(err)
			}
			if count == 0 {
				t.Fatalf("no result lines in %s", file)
			}
			writeFamilies(&golden, names)
		})
	}
	compareGolden(t, filepath.Join("testdata", "names", "parsed.golden"), golden.Bytes())
}

// checkRealName checks the invariants of one name a run printed at
// GOMAXPROCS procs.
func checkRealName(t *testing.T, full string, procs int, n Name, res *benchfmt.Result) {
	t.Helper()
	if s := n.String(); s != full {
		t.Errorf("%s: String() = %q", full, s)
	}
	if want := procs; n.Procs != want {
		t.Errorf("%s: Procs = %d, want %d", full, n.Procs, want)
	}
	// The name as b.Name gives it is the line's without its suffix.
	bare := n
	bare.Procs = 0
	if !equalNames(ParseName(bare.String()), bare) {
		t.Errorf("%s: ParseName of the bare name %q differs", full, bare.String())
	}
	// benchfmt's base name is the function less "Benchmark" (a function
	// name, an identifier, has no '-' for benchfmt to misread).
	if got := "Benchmark" + string(res.Name.Base()); got != n.Function {
		t.Errorf("%s: benchfmt's base %q, ours %q", full, got, n.Function)
	}
	// Without P, benchproc's "/key" is ours with the "#NN" suffix left
	// in the value, and the "-N" testing cannot have written ("-1", "-04")
	// taken off it.
	guess := ParseResultName(full, 0)
	for i, e := range guess.Elements {
		if e.Bare() || guess.Index(e.Key) != i {
			continue
		}
		want := e.Value + e.Dup
		if i == len(guess.Elements)-1 && guess.Procs == 0 {
			if _, parts := res.Name.Parts(); len(parts) > 0 && parts[len(parts)-1][0] == '-' {
				want = strings.TrimSuffix(want, string(parts[len(parts)-1]))
			}
		}
		if got := benchprocValue(t, res, e.Key); got != want {
			t.Errorf("%s: benchproc's /%s is %q, want %q from %#v", full, e.Key, got, want, e)
		}
	}
}

// benchprocValue projects res on benchproc's "/key".
func benchprocValue(t *testing.T, res *benchfmt.Result, key string) string {
	t.Helper()
	var p benchproc.ProjectionParser
	filter, err := benchproc.NewFilter("*")
	if err != nil {
		t.Fatal(err)
	}
	proj, err := p.Parse(strconv.Quote("/"+key), filter)
	if err != nil {
		t.Fatalf("benchproc cannot project /%s: %v", key, err)
	}
	return proj.Project(res).Get(proj.Fields()[0])
}

// writeFamilies writes, for the golden file, every family of two or more
// names (names that differ in one element), with the values it takes.
func writeFamilies(w *bytes.Buffer, names []Name) {
	var order []string
	values := map[string][]string{}
	for _, n := range names {
		for i, e := range n.Elements {
			f := n.Family(i)
			if _, ok := values[f]; !ok {
				order = append(order, f)
			}
			values[f] = append(values[f], e.Value+e.Dup)
		}
	}
	for _, f := range order {
		if len(values[f]) > 1 {
			fmt.Fprintf(w, "family %s\t%q\n", f, values[f])
		}
	}
}

// describe writes a parsed name for the golden file: the function, each
// element (key=value as k=%q, bare as %q, then its #NN), the procs, and
// what the name reads as when P is not known, where that differs.
func describe(n, guess Name) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fn=%q", n.Function)
	for _, e := range n.Elements {
		b.WriteString(" | ")
		if e.Bare() {
			fmt.Fprintf(&b, "%q", e.Value)
		} else {
			fmt.Fprintf(&b, "%s=%q", e.Key, e.Value)
		}
		if e.Dup != "" {
			b.WriteString(" " + e.Dup)
		}
	}
	fmt.Fprintf(&b, " | procs=%d", n.Procs)
	exact := n
	if exact.Procs == 1 {
		exact.Procs = 0 // no suffix either way
	}
	if !equalNames(exact, guess) {
		g := guess
		g.Procs = 0
		fmt.Fprintf(&b, " | P unknown: %q procs=%d", g.String(), guess.Procs)
	}
	return b.String()
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if updating() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update and review the diff):\n%s", path, lineDiff(want, got))
	}
}

// lineDiff lists the lines of want and got that differ, by position.
func lineDiff(want, got []byte) string {
	w, g := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, wl, gl)
		}
	}
	return b.String()
}

func FuzzParseName(f *testing.F) {
	for _, s := range []string{
		"BenchmarkCount/size=1KiB-2", "BenchmarkOrder/EuropeanNumber/1000-2", "BenchmarkDecode/spec-1.1.0-2",
		"BenchmarkEdge/dup#01#01", "BenchmarkEdge/#00", "BenchmarkEdge/expr=a=b", "BenchmarkEdge/=bare",
		"BenchmarkEdge/trailing/", "BenchmarkEdge/size-4-4", "BenchmarkEdge/é/ü=日本", "-4", "/", "#00", "\xff/\xfe=#01-3",
	} {
		f.Add(s, 0)
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, s string, procs int) {
		n := ParseName(s)
		if got := n.String(); got != s {
			t.Fatalf("ParseName(%q).String() = %q", s, got)
		}
		if n.Procs != 0 {
			t.Fatalf("ParseName(%q).Procs = %d", s, n.Procs)
		}
		if want := strings.Count(s, "/"); len(n.Elements) != want {
			t.Fatalf("ParseName(%q): %d elements, want %d", s, len(n.Elements), want)
		}
		for _, p := range []int{procs, 0, 1, 2} {
			r := ParseResultName(s, p)
			if got := r.String(); got != s {
				t.Fatalf("ParseResultName(%q, %d).String() = %q", s, p, got)
			}
			switch {
			case p == 1 && r.Procs != 1,
				p > 1 && r.Procs != 0 && r.Procs != p,
				p <= 0 && r.Procs != 0 && r.Procs < 2:
				t.Fatalf("ParseResultName(%q, %d).Procs = %d", s, p, r.Procs)
			}
		}
		for i, e := range n.Elements {
			if strings.Contains(e.String(), "/") {
				t.Fatalf("ParseName(%q): element %d %q holds a '/'", s, i, e)
			}
			if e.Key != "" && strings.Contains(e.Key, "=") {
				t.Fatalf("ParseName(%q): key %q holds a '='", s, e.Key)
			}
			fam := ParseName(n.Family(i))
			if len(fam.Elements) != len(n.Elements) || fam.Elements[i].Key != e.Key {
				t.Fatalf("ParseName(%q).Family(%d) = %q: not the name with element %d wild", s, i, n.Family(i), i)
			}
		}
	})
}

func TestFunctionOf(t *testing.T) {
	for _, name := range []string{"BenchmarkHash", "BenchmarkHash/impl=fnv/n=1024", "TestX/a/b#01", "BenchmarkOrder/EuropeanNumber/1000", "", "/x"} {
		t.Run(name, func(t *testing.T) {
			if got, want := FunctionOf(name), ParseName(name).Function; got != want {
				t.Errorf("FunctionOf(%q) = %q, ParseName's Function %q", name, got, want)
			}
		})
	}
}
