package browser

import (
	"testing"

	"github.com/benchsup/benchsup/measure"
)

// BenchmarkPipeline is a workload of two windows, for the report's window
// plot.
func BenchmarkPipeline(b *testing.B) {
	measure.Workload(b, func(w *measure.W) {
		w.Window("fill", func() { work(200_000) })
		w.Window("sum", func() { work(50_000) })
	})
}
