package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/benchsup/benchsup/internal/rundoctest"
	"github.com/benchsup/benchsup/rundoc"
)

// shapeDoc is a run of BenchmarkHash/impl={fnv,xxh}/n={1024,8,64}, xxh
// faster everywhere, n in an order names would sort wrong as text, a
// BenchmarkEncode without the keys, and a skipped leaf.
func shapeDoc() rundoc.Document {
	doc := rundoc.Document{Schema: rundoc.SchemaVersion, Meta: rundoctest.MetaOf(rundoc.ModeBench, 3)}
	const pkg = "github.com/acme/shop/codec"
	for _, impl := range []string{"fnv", "xxh"} {
		for _, n := range []int{1024, 8, 64} {
			ns := float64(n) * 2
			if impl == "xxh" {
				ns = float64(n)
			}
			doc.Rows = append(doc.Rows, rundoctest.BenchRow(pkg, fmt.Sprintf("BenchmarkHash/impl=%s/n=%d", impl, n),
				rundoctest.SamplesOf(1000, nil, nil, nil, ns, ns+1, ns-1),
				rundoctest.SamplesOf(1000, nil, nil, nil, ns+2, ns+1, ns),
				rundoctest.SamplesOf(1000, nil, nil, nil, ns, ns, ns+1)))
		}
	}
	doc.Rows = append(doc.Rows, rundoctest.BenchRow(pkg, "BenchmarkEncode",
		rundoctest.SamplesOf(10, nil, nil, nil, 500, 510, 505)))
	doc.Rows = append(doc.Rows, rundoc.Row{Package: pkg, Name: "BenchmarkHash/impl=crc/n=8", Kind: rundoc.KindBenchmark,
		Outcome: rundoc.OutcomeSkipped, Skipped: rundoctest.Str("no crc on this CPU")})
	return doc
}

func mustKeys(t *testing.T, spec string) []Key {
	t.Helper()
	if spec == "" {
		return nil
	}
	k, err := ParseKeys(spec)
	require.NoError(t, err)
	return k
}

func TestShapedTableGolden(t *testing.T) {
	tests := []struct {
		name, row, col, sort string
	}{
		{"shape-col-impl", "", "/impl", ""},
		{"shape-row-n-col-impl", "/n", "/impl", SortName},
		{"shape-row-name", ".name", "", ""},
		{"shape-sort-median", "", "", SortMedian},
		{"shape-sort-name", "", "", SortName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Shape{Row: mustKeys(t, tt.row), Col: mustKeys(t, tt.col), Sort: tt.sort}
			var buf bytes.Buffer
			require.NoError(t, WriteTable(&buf, shapeDoc(), TableOptions{Shape: s}))
			rundoctest.Golden(t, tt.name+".table", buf.Bytes())
		})
	}
}

// TestShapeDefaultUnchanged: the zero Shape is today's table, byte for
// byte, on every fixture.
func TestShapeDefaultUnchanged(t *testing.T) {
	for name, doc := range map[string]rundoc.Document{"green": rundoctest.GreenDoc(), "errors": rundoctest.ErrorDoc(), "shape": shapeDoc()} {
		t.Run(name, func(t *testing.T) {
			var a, b bytes.Buffer
			require.NoError(t, WriteTable(&a, doc, TableOptions{}))
			require.NoError(t, WriteTable(&b, doc, TableOptions{Shape: Shape{}}))
			assert.Equal(t, a.String(), b.String())
		})
	}
}

func TestShapeColumns(t *testing.T) {
	var buf bytes.Buffer
	s := Shape{Row: mustKeys(t, "/n"), Col: mustKeys(t, "/impl"), Sort: SortName}
	require.NoError(t, WriteTable(&buf, shapeDoc(), TableOptions{Shape: s}))
	out := buf.String()
	header := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "/n ") {
			header = l
		}
	}
	require.NotEmpty(t, header, out)
	assert.Equal(t, []string{"/n", "impl=fnv", "impl=xxh", "(no", "impl)", "impl=crc"}, strings.Fields(header), "one column per value of impl, in order of first appearance")
	i8, i64, i1024 := strings.Index(out, "  n=8 "), strings.Index(out, "  n=64 "), strings.Index(out, "  n=1024 ")
	assert.True(t, i8 >= 0 && i8 < i64 && i64 < i1024, "--sort=name orders n numerically:\n%s", out)
	assert.Contains(t, out, "skipped: no crc on this CPU", "the skip reason, which has no notes column, is a note")
}

func TestParseKeys(t *testing.T) {
	tests := []struct {
		spec string
		want []Key
		err  string
	}{
		{"/impl", []Key{{Sub: "impl"}}, ""},
		{".name,/n", []Key{{Field: ".name"}, {Sub: "n"}}, ""},
		{".fullname /n", []Key{{Field: ".fullname"}, {Sub: "n"}}, ""},
		{"impl", nil, "not a key"},
		{"/", nil, "not a key"},
		{".unit", nil, "not a key"},
		{",", nil, "no key"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := ParseKeys(tt.spec)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCheckShape(t *testing.T) {
	names := []string{"BenchmarkHash/impl=fnv/n=8", "BenchmarkEncode/size=1K"}
	require.NoError(t, CheckShape(Shape{Col: []Key{{Sub: "impl"}}, Row: []Key{{Field: ".name"}}}, names))
	err := CheckShape(Shape{Col: []Key{{Sub: "imp"}}}, names)
	require.Error(t, err)
	assert.Equal(t, "no benchmark name has the key /imp (keys present: .name, .fullname, /impl, /n, /size)", err.Error())
	assert.NotContains(t, err.Error(), "\n")
}

func TestCompareNames(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"n=8", "n=64", -1},
		{"n=64", "n=1024", -1},
		{"BenchmarkA/n=8", "BenchmarkB/n=1", -1},
		{"impl=fnv", "impl=xxh", -1},
		{"n=8", "n=8", 0},
		{"BenchmarkA", "BenchmarkA/n=1", -1},
	}
	for _, tt := range tests {
		t.Run(tt.a+" "+tt.b, func(t *testing.T) {
			assert.Equal(t, tt.want, compareNames(tt.a, tt.b))
			assert.Equal(t, -tt.want, compareNames(tt.b, tt.a))
		})
	}
}

func TestShapedComparisonGolden(t *testing.T) {
	c := rundoctest.ComparisonFixture()
	tests := []struct {
		name string
		s    Shape
	}{
		{"comparison-shape-col-name", Shape{Col: []Key{{Field: ".name"}}}},
		{"comparison-shape-sort-median", Shape{Sort: SortMedian}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, WriteShapedComparisonTable(&buf, c, tt.s))
			rundoctest.Golden(t, tt.name+".golden", buf.Bytes())
		})
	}
	var a, b bytes.Buffer
	require.NoError(t, WriteComparisonTable(&a, c))
	require.NoError(t, WriteShapedComparisonTable(&b, c, Shape{}))
	assert.Equal(t, a.String(), b.String(), "the zero Shape is the comparison table as it was")
}
