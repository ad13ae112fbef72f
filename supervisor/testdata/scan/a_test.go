package scan

import (
	"os"
	tt "testing"
)

func TestMain(m *tt.M) { os.Exit(m.Run()) }

func TestPlain(t *tt.T)       {}
func Test(t *tt.T)            {}
func TestÜber(t *tt.T)        {}
func Testlower(t *tt.T)       {} // lower-case after the prefix: not a test
func TestWrongArg(t *tt.B)    {}
func TestResult(t *tt.T) bool { return true }
func TestTwo(a, b *tt.T)      {}

func BenchmarkPlain(b *tt.B)  {}
func Benchmark_under(b *tt.B) {}
func Benchmarkx(b *tt.B)      {}

type r struct{}

func (r) TestMethod(t *tt.T) {}

func TestGeneric[T any](t *tt.T) {}
