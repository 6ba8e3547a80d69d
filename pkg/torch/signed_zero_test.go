package torch_test

import (
	"math"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The sign of zero as PyTorch 1.13 keeps it: relu(-0) is -0; maximum and
// minimum of equal operands (0 and -0) return the first; clamp and relu6
// pass -0 through. Checked on short rows and on rows long enough for the
// vectorised loops, in float32 and float64.
func TestSignOfZeroAsPyTorch(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, dt := range []torch.DType{torch.Float32, torch.Float64} {
		for _, n := range []int{3, 1 << 12} {
			neg := torch.Full([]int{n}, negZero, torch.WithDType(dt))
			pos := torch.Zeros([]int{n}, torch.WithDType(dt))
			cases := map[string]struct {
				y        *torch.Tensor
				negative bool
			}{
				"relu(-0)":            {neg.Relu(), true},
				"relu6(-0)":           {neg.Relu6(), true},
				"clamp(-0, 0, nil)":   {neg.Clamp(0, nil), true},
				"maximum(0, -0)":      {pos.Maximum(neg), false},
				"maximum(-0, 0)":      {neg.Maximum(pos), true},
				"minimum(0, -0)":      {pos.Minimum(neg), false},
				"minimum(-0, 0)":      {neg.Minimum(pos), true},
				"clamp(-0, [0], [6])": {neg.ClampTensor(pos, pos.AddScalar(6)), true},
				"clamp(0, [-0], [6])": {pos.ClampTensor(neg, neg.AddScalar(6)), false},
			}
			for name, c := range cases {
				v, err := torch.ToSlice[float64](c.y.ToDType(torch.Float64))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				for i, x := range v {
					if x != 0 || math.Signbit(x) != c.negative {
						t.Errorf("%v n=%d %s[%d] = %v (sign bit %v), PyTorch's sign bit is %v", dt, n, name, i, x, math.Signbit(x), c.negative)
						break
					}
				}
			}
		}
	}
}
