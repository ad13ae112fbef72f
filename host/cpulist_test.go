package host

import (
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr string
	}{
		{in: "0", want: []int{0}},
		{in: "0-3,5", want: []int{0, 1, 2, 3, 5}},
		{in: "0-3,5\n", want: []int{0, 1, 2, 3, 5}},
		{in: "7,2-3, 1 ,3", want: []int{1, 2, 3, 7}},
		{in: "4-4", want: []int{4}},
		{in: "", wantErr: "empty"},
		{in: " \n", wantErr: "empty"},
		{in: "3-1", wantErr: `"3-1": range ends before it starts`},
		{in: "1,,2", wantErr: `"": missing CPU number`},
		{in: "1-", wantErr: `"1-": missing CPU number`},
		{in: "a", wantErr: `"a" is not a CPU number`},
		{in: "-1", wantErr: "missing CPU number"},
		{in: "+1", wantErr: `"+1" is not a CPU number`},
		{in: "0-99999999", wantErr: "beyond any kernel's limit"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseCPUList(tc.in)
			if tc.wantErr != "" {
				if !errors.Is(err, ErrCPUList) || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err = %v, want one line wrapping ErrCPUList with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("= %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

func TestFormatCPUList(t *testing.T) {
	tests := []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{0}, "0"},
		{[]int{0, 1}, "0-1"},
		{[]int{0, 1, 2, 3, 5, 7, 8}, "0-3,5,7-8"},
		{[]int{5, 3, 3, 4, 0}, "0,3-5"},
	}
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			got := FormatCPUList(tc.in)
			if got != tc.want {
				t.Fatalf("FormatCPUList(%v) = %q, want %q", tc.in, got, tc.want)
			}
			if len(tc.in) > 0 {
				// Round trip: what is formatted parses back to the set.
				back, err := ParseCPUList(got)
				if err != nil || FormatCPUList(back) != got {
					t.Errorf("round trip %q -> %v, %v", got, back, err)
				}
			}
		})
	}
}

func TestTopologyLive(t *testing.T) {
	online, err := OnlineCPUs()
	if runtime.GOOS != "linux" {
		if !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("off Linux: %v", err)
		}
		return
	}
	if err != nil || len(online) == 0 {
		t.Fatalf("OnlineCPUs = %v, %v", online, err)
	}
	sib, err := Siblings(online[0])
	if err != nil {
		t.Skipf("no topology in this sysfs: %v", err)
	}
	found := false
	for _, c := range sib {
		found = found || c == online[0]
	}
	if !found {
		t.Errorf("Siblings(%d) = %v, does not include the CPU itself", online[0], sib)
	}
}
