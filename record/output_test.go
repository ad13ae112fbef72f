package record

import (
	"bytes"
	"encoding/csv"
	"testing"
)

func TestCSV(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spans bool
		rows  int // after the header
	}{
		{"identities", false, 2},
		{"with spans", true, 2 + 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			rec := New(Config{Output: &buf, Format: "csv", Spans: tc.spans})
			id := rec.Register("request")
			rec.Register("idle")
			rec.Start()
			for _, o := range []Outcome{Success, Failure, Canceled} {
				s := id.Begin()
				s.Finish(o)
			}
			if err := rec.Stop(); err != nil {
				t.Fatal(err)
			}
			rows, err := csv.NewReader(&buf).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1+tc.rows {
				t.Fatalf("%d rows, want %d", len(rows), 1+tc.rows)
			}
			col := map[string]int{}
			for i, h := range rows[0] {
				col[h] = i
			}
			if len(col) != len(CSVHeader) {
				t.Fatalf("header %v repeats a column", rows[0])
			}
			get := func(row []string, name string) string {
				i, ok := col[name]
				if !ok {
					t.Fatalf("no column %q", name)
				}
				return row[i]
			}
			req := rows[1]
			for name, want := range map[string]string{
				"kind": "identity", "identity": "request", "success": "1", "failure": "1", "canceled": "1",
				"timeout": "0", "unfinished": "0", "observations": "3", "retained": "3", "omitted": "0",
				"policy": "reservoir", "capacity": "10000", "percentilesOver": OverAll, "spans": "3",
				"sampleSemantics": "individual-span", "observation": "", "outcome": "",
			} {
				if got := get(req, name); got != want {
					t.Errorf("request's %s = %q, want %q", name, got, want)
				}
			}
			if get(req, "medianNs") == "" || get(req, "medianConfidence") == "" {
				t.Error("request's median or its interval is empty")
			}
			idle := rows[len(rows)-1]
			if tc.spans {
				idle = rows[2+3]
				sp := rows[2]
				if get(sp, "kind") != "span" || get(sp, "identity") != "request" || get(sp, "observation") != "1" ||
					get(sp, "outcome") != "success" || get(sp, "durationNs") == "" || get(sp, "success") != "" {
					t.Errorf("first span row %v", sp)
				}
			}
			if get(idle, "identity") != "idle" || get(idle, "observations") != "0" {
				t.Fatalf("idle row %v", idle)
			}
			for _, name := range []string{"medianNs", "minNs", "meanNs", "medianLowNs", "percentilesOver"} {
				if got := get(idle, name); got != "" {
					t.Errorf("idle's %s = %q: unmeasured must be empty, not a number", name, got)
				}
			}
		})
	}
}
