package sandbox

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckCPUs(t *testing.T) {
	for _, tt := range []struct {
		in   []int
		want []int
		list string
	}{
		{[]int{0}, []int{0}, "0"},
		{[]int{3, 1, 2, 1, 7}, []int{1, 2, 3, 7}, "1-3,7"},
		{[]int{0, 2, 4, 5}, []int{0, 2, 4, 5}, "0,2,4-5"},
	} {
		got, err := checkCPUs(tt.in)
		assert.NoError(t, err)
		assert.Equal(t, tt.want, got)
		assert.Equal(t, tt.list, formatCPUs(got))
	}
}

func TestAffinityError(t *testing.T) {
	cause := errors.New("EINVAL")
	e := &AffinityError{CPUs: []int{0, 1, 3}, Reason: "refused", Err: cause}
	assert.Equal(t, "sandbox: cannot pin to CPUs 0-1,3: refused: EINVAL", e.Error())
	assert.ErrorIs(t, e, ErrAffinity)
	assert.ErrorIs(t, e, cause)
	bare := &AffinityError{Reason: "none here", Err: errors.ErrUnsupported}
	assert.Equal(t, "sandbox: cannot pin children: none here: "+errors.ErrUnsupported.Error(), bare.Error())
	assert.ErrorIs(t, bare, errors.ErrUnsupported)
}
