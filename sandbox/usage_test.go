package sandbox

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestParseCPUStat(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    time.Duration
		wantErr bool
	}{
		{"v2", "usage_usec 1234567\nuser_usec 1000000\nsystem_usec 234567\nnr_periods 0\n", 1234567 * time.Microsecond, false},
		{"no trailing newline", "user_usec 1\nusage_usec 42", 42 * time.Microsecond, false},
		{"missing", "user_usec 1\nsystem_usec 2\n", 0, true},
		{"not a number", "usage_usec x\n", 0, true},
		{"negative", "usage_usec -5\n", 0, true},
		{"prefix only", "usage_usecs 5\n", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseCPUStat([]byte(tt.data))
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseMemoryCurrent(t *testing.T) {
	tests := []struct {
		data    string
		want    int64
		wantErr bool
	}{
		{"1048576\n", 1 << 20, false},
		{"0", 0, false},
		{"max\n", 0, true},
		{"", 0, true},
		{"-1\n", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.data, func(t *testing.T) {
			got, err := parseMemoryCurrent([]byte(tt.data))
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseProcStatCPU(t *testing.T) {
	tick := time.Second / userHZ
	tests := []struct {
		name    string
		data    string
		want    time.Duration
		wantErr bool
	}{
		// Fields 14-17: utime 150, stime 30, cutime 7, cstime 3.
		{"plain", "4242 (server) S 1 4242 4242 0 -1 4194560 100 0 0 0 150 30 7 3 20 0 8 0 12345 1000000 500\n", 190 * tick, false},
		{"name with spaces and parens", "7 (a) b (c) R 1 7 7 0 -1 0 0 0 0 0 2 1 0 0 20 0 1 0 1 1 1\n", 3 * tick, false},
		{"short", "7 (x) R 1 7 7 0 -1 0 0 0 0 0 2\n", 0, true},
		{"no name", "7 x R 1\n", 0, true},
		{"not a number", "7 (x) R 1 7 7 0 -1 0 0 0 0 0 a 1 0 0 20\n", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseProcStatCPU([]byte(tt.data))
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseVmRSS(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    int64
		wantErr bool
	}{
		{"status", "Name:\tserver\nVmPeak:\t  900 kB\nVmRSS:\t    5120 kB\nRssAnon:\t 4000 kB\n", 5120 << 10, false},
		{"zombie", "Name:\tserver\nState:\tZ (zombie)\n", 0, true},
		{"other unit", "VmRSS:\t5 MB\n", 0, true},
		{"not a number", "VmRSS:\tx kB\n", 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseVmRSS([]byte(tt.data))
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			assert.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
