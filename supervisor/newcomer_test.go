package supervisor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "go.mod")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, tc := range []struct {
		name, dir, want string
	}{
		{"none given", "", ""},
		{"a directory", dir, ""},
		{"missing", filepath.Join(dir, "nowhere"), "no such directory"},
		{"a file", file, "not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkDir(tc.dir)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, "directory "+tc.dir+": "+tc.want)
		})
	}
}

func TestRestLines(t *testing.T) {
	for in, want := range map[string]string{"one": "", "one\ntwo\nthree\n": "two\nthree", "": ""} {
		assert.Equal(t, want, restLines(in), "%q", in)
	}
}
