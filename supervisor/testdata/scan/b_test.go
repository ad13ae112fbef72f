package scan

import "testing"

func TestSecondFile(t *testing.T)      {}
func BenchmarkSecondFile(b *testing.B) {}
