package rundoc_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/benchsup/benchsup/rundoc"
)

func TestKindMeasured(t *testing.T) {
	tests := []struct {
		kind rundoc.Kind
		want bool
	}{
		{rundoc.KindBenchmark, true},
		{rundoc.KindWorkload, true},
		{rundoc.KindTest, false},
		{rundoc.KindPackage, false},
		{rundoc.Kind("unknown"), false},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind), func(t *testing.T) {
			assert.Equal(t, tt.want, tt.kind.Measured())
		})
	}
}
