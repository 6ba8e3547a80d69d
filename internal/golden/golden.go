// Package golden reads the expected values that scripts/golden/*.py write
// with real PyTorch into testdata/, for the tests of every package.
package golden

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Tensor is a tensor as the scripts write it: shape, dtype name and the
// values in row-major order.
type Tensor struct {
	Shape []int     `json:"shape"`
	DType string    `json:"dtype"`
	Data  []float64 `json:"data"`
}

// UnmarshalJSON reads a tensor whose values are numbers or the strings
// the scripts write for the specials: "nan", "inf", "-inf", "-0".
func (g *Tensor) UnmarshalJSON(b []byte) error {
	var raw struct {
		Shape []int  `json:"shape"`
		DType string `json:"dtype"`
		Data  []any  `json:"data"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	g.Shape, g.DType, g.Data = raw.Shape, raw.DType, make([]float64, len(raw.Data))
	for i, v := range raw.Data {
		switch x := v.(type) {
		case float64:
			g.Data[i] = x
		case bool:
			if x {
				g.Data[i] = 1
			}
		case string:
			special := map[string]float64{"nan": math.NaN(), "inf": math.Inf(1), "-inf": math.Inf(-1), "-0": math.Copysign(0, -1)}
			f, ok := special[x]
			if !ok {
				return fmt.Errorf("golden: value %q", x)
			}
			g.Data[i] = f
		default:
			return fmt.Errorf("golden: value %v", v)
		}
	}
	return nil
}

// Tensor makes the tensor (float64, float32, int64 or bool as written).
func (g Tensor) Tensor() *torch.Tensor {
	switch g.DType {
	case "int64":
		v := make([]int64, len(g.Data))
		for i, x := range g.Data {
			v[i] = int64(x)
		}
		return torch.FromSlice(v, torch.WithShape(g.Shape...))
	case "float32":
		v := make([]float32, len(g.Data))
		for i, x := range g.Data {
			v[i] = float32(x)
		}
		return torch.FromSlice(v, torch.WithShape(g.Shape...))
	}
	return torch.FromSlice(append([]float64(nil), g.Data...), torch.WithShape(g.Shape...))
}

// Load decodes testdata/name (at the repository's root) into v.
func Load(name string, v any) error {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "testdata", name))
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// Close reports whether got is within atol + rtol*|want| of want, with NaNs
// equal.
func Close(got, want, atol, rtol float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return math.Abs(got-want) <= atol+rtol*math.Abs(want)
}
