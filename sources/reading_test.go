package sources

import (
	"reflect"
	"testing"
)

func TestDerive(t *testing.T) {
	r := Derive(Reading{Values: map[string]float64{"instructions": 300, "cycles": 100}})
	if r.Values["ipc"] != 3 || r.Estimated["ipc"] {
		t.Errorf("exact: %+v", r)
	}
	r = Derive(Reading{Values: map[string]float64{"instructions": 300, "cycles": 100}, Estimated: map[string]bool{"cycles": true}})
	if r.Values["ipc"] != 3 || !r.Estimated["ipc"] {
		t.Errorf("estimated input: %+v", r)
	}
	r = Derive(Reading{Values: map[string]float64{"cycles": 100}, Unavailable: map[string]string{"instructions": "not counted"}})
	if _, ok := r.Values["ipc"]; ok || r.Unavailable["ipc"] != "instructions: not counted" {
		t.Errorf("unavailable input: %+v", r)
	}
	r = Derive(Reading{Values: map[string]float64{"instructions": 0, "cycles": 0}})
	if _, ok := r.Values["ipc"]; ok || r.Unavailable["ipc"] == "" {
		t.Errorf("no cycles: %+v", r)
	}
	r = Derive(Reading{Values: map[string]float64{"task-clock": 5}})
	if len(r.Values) != 1 || len(r.Unavailable) != 0 {
		t.Errorf("nothing to derive: %+v", r)
	}
	// Derive does not modify its argument.
	in := Reading{Values: map[string]float64{"instructions": 1, "cycles": 1}}
	Derive(in)
	if _, ok := in.Values["ipc"]; ok {
		t.Error("Derive modified its argument")
	}
}

func TestSum(t *testing.T) {
	a := Reading{Values: map[string]float64{"instructions": 300, "cycles": 100, "ipc": 3, "maxrss": 4096, "minflt": 2}}
	b := Reading{Values: map[string]float64{"instructions": 100, "cycles": 100, "ipc": 1, "maxrss": 8192, "minflt": 3}, Estimated: map[string]bool{"cycles": true, "ipc": true}}
	got := Sum(a, b)
	want := Reading{
		Values:      map[string]float64{"instructions": 400, "cycles": 200, "ipc": 2, "maxrss": 8192, "minflt": 5},
		Estimated:   map[string]bool{"cycles": true, "ipc": true},
		Unavailable: map[string]string{},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Sum = %+v\nwant  %+v", got, want)
	}

	c := Reading{Values: map[string]float64{"instructions": 1}, Unavailable: map[string]string{"cycles": "time_running == 0"}}
	got = Sum(a, c)
	if got.Values["instructions"] != 301 || got.Unavailable["cycles"] != "time_running == 0" || got.Unavailable["ipc"] == "" {
		t.Errorf("Sum with an unavailable bracket = %+v", got)
	}
	if _, ok := got.Unavailable["minflt"]; !ok {
		t.Errorf("minflt missing from one bracket but not unavailable: %+v", got)
	}
	if got := Sum(); len(got.Values) != 0 {
		t.Errorf("Sum() = %+v", got)
	}
}
