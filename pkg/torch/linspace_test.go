package torch_test

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/dtype"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestLinspaceGolden: torch.linspace bit for bit as PyTorch's CPU kernel
// gives it, for every dtype, across the lengths where its vectors and
// chunks begin and end (testdata/linspace.json, scripts/golden/linspace.py).
func TestLinspaceGolden(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/linspace.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Cases []struct {
			DType      string
			Start, End float64
			Steps      int
			Values     []float64
		}
	}
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, c := range g.Cases {
		d, err := dtype.Parse(c.DType)
		if err != nil {
			t.Fatal(err)
		}
		got, err := torch.ToSlice[float64](torch.Linspace(c.Start, c.End, c.Steps, torch.WithDType(d)).ToDType(torch.Float64))
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range c.Values {
			if d != torch.Float64 {
				v = float64(float32(v)) // the golden file keeps nine digits of narrower values
			}
			if got[i] != v && bad < 10 {
				t.Errorf("linspace(%g, %g, %d, %s)[%d] = %.17g, PyTorch %.17g", c.Start, c.End, c.Steps, c.DType, i, got[i], v)
			}
			if got[i] != v || math.Signbit(got[i]) != math.Signbit(v) {
				bad++
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d values differ", bad)
	}
}

// TestLinspaceConversions: start and end (floats, as Python floats) are
// converted to the dtype first, checked as PyTorch's Scalar::to checks them
// (python3-torch 1.13): a value out of the dtype's range, or NaN for an
// integer dtype, is refused (-5.0 for uint8 too); infinities fit the
// floating dtypes.
func TestLinspaceConversions(t *testing.T) {
	for _, c := range []struct {
		start, end float64
		d          torch.DType
		msg        string
	}{
		{0, 1e40, torch.Float32, "value cannot be converted to type float without overflow"},
		{math.NaN(), 5, torch.Int32, "value cannot be converted to type int without overflow"},
		{0, 300, torch.Uint8, "value cannot be converted to type uint8_t without overflow"},
		{-300, 5, torch.Uint8, "value cannot be converted to type uint8_t without overflow"},
		{0, 1e10, torch.Float16, "value cannot be converted to type at::Half without overflow"},
		{-200, 100, torch.Int8, "without overflow"},
		{-5, 10, torch.Uint8, "value cannot be converted to type uint8_t without overflow"},
	} {
		err := torch.Linspace(c.start, c.end, 3, torch.WithDType(c.d)).Err()
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("linspace(%g, %g, 3, %s): %v, want %q", c.start, c.end, c.d.Name(), err, c.msg)
		}
	}
	v, err := torch.ToSlice[float32](torch.Linspace(0, math.Inf(1), 3))
	if err != nil || !math.IsNaN(float64(v[0])) {
		t.Errorf("linspace(0, inf, 3) = %v (%v), PyTorch [nan nan nan]", v, err)
	}
}
