package torch_test

import (
	"encoding/json"
	"math"
	"os"
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
