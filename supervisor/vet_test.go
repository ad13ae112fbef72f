package supervisor

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestVetFlags(t *testing.T) {
	tests := []struct {
		vet   string
		flags []string
		on    bool
		err   string
	}{
		{"", prefixed(DefaultVetChecks), true, ""},
		{"off", nil, false, ""},
		{"all", nil, true, ""},
		{"printf", []string{"-printf"}, true, ""},
		{"atomic,bool", []string{"-atomic", "-bool"}, true, ""},
		{"printf,off", nil, false, `does not accept "off" in a list with other analyzers`},
		{"all,printf", nil, false, `does not accept "all"`},
		{"printf,", nil, false, "empty list element"},
		{"printf=1", nil, false, "equal signs"},
		{"a b", nil, false, "spaces"},
	}
	for _, tt := range tests {
		t.Run(tt.vet, func(t *testing.T) {
			err := checkVet(tt.vet)
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			assert.NoError(t, err)
			s := &supervisor{cfg: Config{Vet: tt.vet}}
			flags, on := s.vetFlags()
			assert.Equal(t, tt.flags, flags)
			assert.Equal(t, tt.on, on)
		})
	}
	assert.Contains(t, prefixed(DefaultVetChecks), "-printf", "go test's default checks")
}
