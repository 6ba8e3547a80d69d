// Package pyfmt formats numbers as Python does, for error messages that
// repeat PyTorch's word for word.
package pyfmt

import (
	"fmt"
	"math"
	"strconv"
)

// Float formats v as Python's repr of a float (2.0, 0.1, 1e-05, inf).
func Float(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		return "nan"
	}
	if a := math.Abs(v); a == 0 || (a >= 1e-4 && a < 1e16) {
		if math.Trunc(v) == v {
			return fmt.Sprintf("%.1f", v)
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'e', -1, 64)
}
