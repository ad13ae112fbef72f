package host

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ErrCPUList is wrapped by every error ParseCPUList returns.
var ErrCPUList = errors.New("bad CPU list")

// maxCPU bounds a CPU number: the kernel's NR_CPUS tops out at 8192, and a
// typo such as "0-99999999" must fail rather than allocate a huge list.
const maxCPU = 1 << 16

// ParseCPUList parses the kernel's CPU list format ("0-3,5", as in
// /sys/devices/system/cpu/online and taskset -c) into ascending CPU numbers
// without duplicates. Blanks around items and a trailing newline are
// accepted; an empty list is an error, since no run can use no CPU.
func ParseCPUList(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("%w: empty", ErrCPUList)
	}
	seen := map[int]bool{}
	var cpus []int
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		lo, hi, isRange := strings.Cut(item, "-")
		first, err := cpuNumber(lo, item)
		if err != nil {
			return nil, err
		}
		last := first
		if isRange {
			if last, err = cpuNumber(hi, item); err != nil {
				return nil, err
			}
			if last < first {
				return nil, fmt.Errorf("%w: %q: range ends before it starts", ErrCPUList, item)
			}
		}
		for c := first; c <= last; c++ {
			if !seen[c] {
				seen[c] = true
				cpus = append(cpus, c)
			}
		}
	}
	sort.Ints(cpus)
	return cpus, nil
}

func cpuNumber(s, item string) (int, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.Atoi(s)
	switch {
	case s == "":
		return 0, fmt.Errorf("%w: %q: missing CPU number", ErrCPUList, item)
	case err != nil || n < 0 || s[0] == '+':
		return 0, fmt.Errorf("%w: %q: %q is not a CPU number", ErrCPUList, item, s)
	case n >= maxCPU:
		return 0, fmt.Errorf("%w: %q: CPU %d is beyond any kernel's limit", ErrCPUList, item, n)
	}
	return n, nil
}

// FormatCPUList writes CPUs in the kernel's list format, every run of two
// or more consecutive CPUs as a range, as the kernel does ("0-3,5,7-8").
// The input need not be sorted; duplicates are dropped. No CPUs format as
// "".
func FormatCPUList(cpus []int) string {
	c := append([]int(nil), cpus...)
	sort.Ints(c)
	var b strings.Builder
	for i := 0; i < len(c); {
		j := i
		for j+1 < len(c) && (c[j+1] == c[j] || c[j+1] == c[j]+1) {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(c[i]))
		if c[j] != c[i] {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(c[j]))
		}
		i = j + 1
	}
	return b.String()
}
