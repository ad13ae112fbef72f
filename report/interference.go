package report

import (
	"fmt"

	"github.com/benchsup/benchsup/rundoc"
)

// interferenceCell is what the n column adds for a row the watch had to
// repair or that kept disturbed samples: " (2 retaken)", " (1 disturbed)".
func interferenceCell(r *rundoc.RowInterference) string {
	if r == nil {
		return ""
	}
	var s string
	if r.Retakes > 0 {
		s += fmt.Sprintf(" (%d retaken)", r.Retakes)
	}
	if kept := r.Kept(); kept > 0 {
		s += fmt.Sprintf(" (%d disturbed)", kept)
	}
	return s
}
