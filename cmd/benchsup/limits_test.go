package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr string
	}{
		{"1048576", 1 << 20, ""},
		{"64M", 64 << 20, ""},
		{"512MiB", 512 << 20, ""},
		{"1GiB", 1 << 30, ""},
		{"2G", 2 << 30, ""},
		{"100K", 100 << 10, ""},
		{"1TiB", 1 << 40, ""},
		{"0", 0, "want a positive size"},
		{"0MiB", 0, "want a positive size"},
		{"", 0, "want a size such as"},
		{"MiB", 0, "want a size such as"},
		{"64MB", 0, "want a size such as"},
		{"64 MiB", 0, "want a size such as"},
		{"1.5GiB", 0, "want a size such as"},
		{"-5M", 0, "want a size such as"},
		{"64m", 0, "want a size such as"},
		{"9223372036854775807T", 0, "too large"},
		{"99999999999999999999", 0, "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseSize(tt.in)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
