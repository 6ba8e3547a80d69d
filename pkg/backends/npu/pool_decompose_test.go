package npu_test

import (
	"math"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The max pools have no NPU kernel (docs/npu-ops.md), and avg_pool2d's
// kernels decline with a cubeMathType other than 0 (set here; the adaptive
// average pool, which takes none, runs natively but in float64): their
// decompositions (pkg/torch/decompose_pool.go) run there and give the CPU's
// values, indices and gradients bit for bit: NaN (the last one wins), -inf
// windows, padding, ceil_mode, dilation, the divisors of count_include_pad,
// divisor_override, adaptive windows of unequal sizes, half dtypes and
// transposed inputs.
func TestPoolDecompositionsExact(t *testing.T) {
	t.Setenv("MINDTORCH_NPU_CUBE_MATH_TYPE", "1")
	nan, inf := math.NaN(), math.Inf(1)
	base := torch.Randn([]int{2, 3, 7, 9}, torch.WithDType(torch.Float64))
	vals, _ := torch.ToSlice[float64](base)
	for i, v := range []float64{nan, -inf, inf, nan, 0} {
		vals[i*13] = v
	}
	for i := range 9 { // a row of -inf
		vals[3*9+i] = -inf
	}
	vals[7*9*2+4] = nan // two NaNs in one window
	vals[7*9*2+5] = nan
	x64 := torch.FromSlice(vals).Reshape(2, 3, 7, 9)
	ds := func(v ...int) *int { return &v[0] }
	type pool struct {
		name string
		op   kernel.OpID
		f    func(x *torch.Tensor) []*torch.Tensor
	}
	pools := []pool{
		{"max 3x3 s2 p1", kernel.OpMaxPool2d, func(x *torch.Tensor) []*torch.Tensor {
			v, i := torch.MaxPool2dWithIndices(x, []int{3}, torch.MaxPoolOptions{Stride: []int{2}, Padding: []int{1}})
			return []*torch.Tensor{v, i}
		}},
		{"max 2x3 dilated ceil", kernel.OpMaxPool2d, func(x *torch.Tensor) []*torch.Tensor {
			v, i := torch.MaxPool2dWithIndices(x, []int{2, 3}, torch.MaxPoolOptions{Stride: []int{2, 2}, Padding: []int{1, 1},
				Dilation: []int{2, 1}, CeilMode: true})
			return []*torch.Tensor{v, i}
		}},
		{"avg 3x3 s2 p1", kernel.OpAvgPool2d, func(x *torch.Tensor) []*torch.Tensor {
			return []*torch.Tensor{torch.AvgPool2d(x, []int{3}, torch.AvgPoolOptions{Stride: []int{2}, Padding: []int{1}})}
		}},
		{"avg exclude pad ceil", kernel.OpAvgPool2d, func(x *torch.Tensor) []*torch.Tensor {
			return []*torch.Tensor{torch.AvgPool2d(x, []int{3, 2}, torch.AvgPoolOptions{Stride: []int{2}, Padding: []int{1},
				CeilMode: true, ExcludePad: true})}
		}},
		{"avg divisor", kernel.OpAvgPool2d, func(x *torch.Tensor) []*torch.Tensor {
			return []*torch.Tensor{torch.AvgPool2d(x, []int{2}, torch.AvgPoolOptions{DivisorOverride: ds(3)})}
		}},
		{"adaptive avg 3x4", kernel.OpAdaptiveAvgPool2d, func(x *torch.Tensor) []*torch.Tensor {
			return []*torch.Tensor{torch.AdaptiveAvgPool2d(x, []int{3, 4})}
		}},
		{"adaptive max 4x5", kernel.OpAdaptiveMaxPool2d, func(x *torch.Tensor) []*torch.Tensor {
			v, i := torch.AdaptiveMaxPool2d(x, []int{4, 5})
			return []*torch.Tensor{v, i}
		}},
	}
	for _, dt := range []torch.DType{torch.Float32, torch.Float64, torch.Float16, torch.BFloat16} {
		for _, transposed := range []bool{false, true} {
			h := x64.ToDType(dt)
			if transposed {
				h = h.Transpose(2, 3).Contiguous().Transpose(2, 3)
			}
			d, err := h.To("npu")
			if err != nil {
				t.Fatal(err)
			}
			for _, pl := range pools {
				hx, dx := h.Detach().RequiresGrad_(true), d.Detach().RequiresGrad_(true)
				before := dispatch.CountsOf(pl.op, device.NPU)
				want, got := pl.f(hx), pl.f(dx)
				if want[0].Err() != nil { // float16 max pools, as in PyTorch 1.13
					if got[0].Err() == nil {
						t.Errorf("%s of %v: the CPU fails (%v), the NPU does not", pl.name, dt, want[0].Err())
					}
					continue
				}
				after := dispatch.CountsOf(pl.op, device.NPU)
				if pl.op == kernel.OpAdaptiveAvgPool2d && dt != torch.Float64 { // native: it takes no cubeMathType
					if after.Native-before.Native != 1 {
						t.Errorf("%s of %v on the NPU should be native: %v, before %v", pl.name, dt, after, before)
					}
				} else if after.Decomposed-before.Decomposed != 1 || after.HostFallback != before.HostFallback {
					t.Errorf("%s of %v on the NPU should be decomposed: %v, before %v", pl.name, dt, after, before)
				}
				for k := range want {
					sameBits(t, pl.name+" "+dt.String(), got[k], want[k])
				}
				// The gradient, with NaN-free upstream values.
				up := torch.Randn(want[0].Shape(), torch.WithDType(torch.Float64)).ToDType(dt)
				dup, _ := up.To("npu")
				if err := want[0].BackwardWith(torch.BackwardOptions{Grad: up}); err != nil {
					t.Fatal(err)
				}
				if err := got[0].BackwardWith(torch.BackwardOptions{Grad: dup}); err != nil {
					t.Fatal(err)
				}
				sameBits(t, pl.name+" gradient "+dt.String(), dx.Grad(), hx.Grad())
			}
		}
	}
	settle(t)
}

// sameBits fails unless got (on any device) has want's dtype, shape and
// values, NaN matching NaN.
func sameBits(t *testing.T, what string, got, want *torch.Tensor) {
	t.Helper()
	if got.DType() != want.DType() || len(got.Shape()) != len(want.Shape()) {
		t.Fatalf("%s: %v%v, want %v%v", what, got.DType(), got.Shape(), want.DType(), want.Shape())
	}
	g, err := torch.ToSlice[float64](got.ToDType(torch.Float64))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	w, _ := torch.ToSlice[float64](want.ToDType(torch.Float64))
	for i := range w {
		if math.Float64bits(g[i]) != math.Float64bits(w[i]) && !(g[i] != g[i] && w[i] != w[i]) {
			t.Errorf("%s [%d]: %v, want %v", what, i, g[i], w[i])
			return
		}
	}
}

// norm has no NPU kernel here: its decomposition (abs, amax/amin, sums,
// sqrt, pow) runs there for every p and gives the CPU's values (which sum
// in double) to float32 rounding, NaN and infinities included.
func TestNormDecomposed(t *testing.T) {
	x := torch.Randn([]int{3, 4, 5}, torch.WithDType(torch.Float64))
	vals, _ := torch.ToSlice[float64](x)
	vals[7], vals[23] = math.NaN(), math.Inf(-1)
	x = torch.FromSlice(vals).Reshape(3, 4, 5)
	for _, dt := range []torch.DType{torch.Float32, torch.Float16, torch.BFloat16} {
		h := x.ToDType(dt)
		d, err := h.To("npu")
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []float64{2, 1, 0, 3, 0.5, math.Inf(1), math.Inf(-1)} {
			for _, dims := range [][]int{nil, {1}, {0, 2}} {
				before := dispatch.CountsOf(kernel.OpNorm, device.NPU)
				got, want := d.NormKeepDim(p, dims...), h.NormKeepDim(p, dims...)
				after := dispatch.CountsOf(kernel.OpNorm, device.NPU)
				if after.Decomposed-before.Decomposed != 1 || after.HostFallback != before.HostFallback {
					t.Errorf("norm(%v) of %v on the NPU should be decomposed: %v, before %v", p, dt, after, before)
				}
				g, err := torch.ToSlice[float64](got.ToDType(torch.Float64))
				if err != nil {
					t.Fatal(err)
				}
				w, _ := torch.ToSlice[float64](want.ToDType(torch.Float64))
				if got.DType() != want.DType() || len(g) != len(w) {
					t.Fatalf("norm(%v) of %v: %v%v, want %v%v", p, dt, got.DType(), got.Shape(), want.DType(), want.Shape())
				}
				tol := 1e-6
				if dt != torch.Float32 {
					tol = 1e-2
				}
				for i := range w {
					same := g[i] == w[i] || (g[i] != g[i] && w[i] != w[i])
					if !same && !(math.Abs(g[i]-w[i]) <= tol*math.Abs(w[i])) {
						t.Errorf("norm(%v, %v) of %v [%d]: %v, want %v", p, dims, dt, i, g[i], w[i])
						break
					}
				}
			}
		}
	}
	settle(t)
}
