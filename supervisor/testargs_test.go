package supervisor

import "testing"

func TestCheckTestArgs(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string // the flag refused, or ""
	}{
		{"own flags", []string{"-update", "-golden=x"}, ""},
		{"positional", []string{"a", "b"}, ""},
		{"run", []string{"-update", "-test.run=X"}, "test.run"},
		{"two dashes", []string{"--test.benchtime", "1x"}, "test.benchtime"},
		{"after a value", []string{"-golden", "x", "-test.count=2"}, "test.count"},
		{"after --", []string{"--", "-test.run=X"}, ""},
		{"another testing flag", []string{"-test.failfast"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, name, reason := checkTestArgs(tt.args)
			if name != tt.want || (name != "" && reason == "") {
				t.Errorf("checkTestArgs(%q) = %q (%q), want %q with a reason", tt.args, name, reason, tt.want)
			}
		})
	}
}

func TestSkipsTop(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		{"", "TestA", false},
		{"TestA", "TestA", true},
		{"TestA", "TestAB", true}, // unanchored, as testing matches
		{"^TestA$", "TestAB", false},
		{"TestA/sub", "TestA", false}, // only a subtest is skipped
		{"TestB|TestA", "TestA", true},
		{"TestB|TestA/x", "TestA", false},
		{"BenchmarkX", "BenchmarkX", true},
	}
	for _, tt := range tests {
		if got := skipsTop(tt.pattern, tt.name); got != tt.want {
			t.Errorf("skipsTop(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}
