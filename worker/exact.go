package worker

import (
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/benchsup/benchsup/protocol"
)

// exactSample reads the totals of the run that just ended from b itself,
// where testing keeps them exact: b.N and b.Elapsed(), and (through
// reflection, read only) the allocation totals and b.ReportMetric values
// testing prints as rounded per-iteration figures. The caller has stopped
// b's timer. ok is false when this testing's B does not hold them as the
// worker expects (its fields are not API); the printed line is then the
// only record. dropped are the units beyond protocol.MaxExtraPerSample,
// left out.
func exactSample(b *testing.B) (s protocol.Sample, bytesPerOp int64, dropped []string, ok bool) {
	v := reflect.ValueOf(b).Elem()
	allocs, okA := uintField(v, "netAllocs")
	bytes, okB := uintField(v, "netBytes")
	setBytes, okS := intField(v, "bytes")
	if !okA || !okB || !okS || b.N <= 0 {
		return protocol.Sample{}, 0, nil, false
	}
	s = protocol.Sample{Iterations: int64(b.N), ElapsedNs: int64(b.Elapsed()), AllocBytes: &bytes, Allocs: &allocs, Exact: true}
	if extra := v.FieldByName("extra"); extra.IsValid() && extra.Kind() == reflect.Map &&
		extra.Type().Key().Kind() == reflect.String && extra.Type().Elem().Kind() == reflect.Float64 {
		var units []string
		values := map[string]float64{}
		for it := extra.MapRange(); it.Next(); {
			units = append(units, it.Key().String())
			values[it.Key().String()] = it.Value().Float()
		}
		sort.Strings(units) // testing prints them sorted too
		if len(units) > protocol.MaxExtraPerSample {
			// The first ones sorted, as from the printed line: the same
			// units in every sample and every process.
			units, dropped = units[:protocol.MaxExtraPerSample], units[protocol.MaxExtraPerSample:]
		}
		for _, u := range units {
			switch v := values[u]; {
			case math.IsNaN(v) || math.IsInf(v, 0):
				s.Extra = append(s.Extra, unmeasuredMetric(u, v))
			default:
				s.Extra = append(s.Extra, protocol.Metric{Unit: u, Value: v})
			}
		}
	}
	return s, setBytes, dropped, true
}

func uintField(v reflect.Value, name string) (uint64, bool) {
	f := v.FieldByName(name)
	if !f.IsValid() || f.Kind() != reflect.Uint64 {
		return 0, false
	}
	return f.Uint(), true
}

func intField(v reflect.Value, name string) (int64, bool) {
	f := v.FieldByName(name)
	if !f.IsValid() || f.Kind() != reflect.Int64 {
		return 0, false
	}
	return f.Int(), true
}

// loggedText returns what b logged (b.Log, b.Skip's arguments), without
// testing's indentation, or "" when this testing keeps it elsewhere.
func loggedText(b *testing.B) string {
	f := reflect.ValueOf(b).Elem().FieldByName("output")
	if !f.IsValid() || f.Kind() != reflect.Slice || f.Type().Elem().Kind() != reflect.Uint8 {
		return ""
	}
	var lines []string
	for _, l := range strings.Split(string(f.Bytes()), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}
