package analysis

import "strings"

func ptr[T any](v T) *T { return &v }

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}
