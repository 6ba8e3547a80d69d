package npu_test

import (
	"math"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// nn's LayerNorm, RMSNorm and GroupNorm call the fused norms. RMS norm has
// no NPU kernel, and the layer and group norms' ACLNN ops take no float64
// (kernels_norm.go): their decompositions run there (forward and backward)
// and give the CPU's outputs and gradients to float32 rounding.
func TestNormLayersDecomposed(t *testing.T) {
	torch.ManualSeed(5)
	x := torch.Randn([]int{4, 8, 6, 5})
	f64 := torch.WithDType(torch.Float64)
	layers := []struct {
		name string
		m    nn.Layer
		op   kernel.OpID
		dt   torch.DType
	}{
		{"LayerNorm", nn.NewLayerNorm([]int{6, 5}, f64), kernel.OpLayerNorm, torch.Float64},
		{"RMSNorm", nn.NewRMSNorm([]int{5}, true), kernel.OpLayerNorm, torch.Float32},
		{"GroupNorm", nn.NewGroupNorm(2, 8, true, f64), kernel.OpGroupNorm, torch.Float64},
	}
	for _, l := range layers {
		x := x.ToDType(l.dt)
		hx := x.Detach().RequiresGrad_(true)
		want := nn.Call(l.m, hx)
		if err := want.Sum().Backward(); err != nil {
			t.Fatal(err)
		}
		var wantGrads []*torch.Tensor
		for _, p := range nn.Parameters(l.m) {
			wantGrads = append(wantGrads, p.Grad())
			p.SetGrad(nil)
		}
		if err := nn.To(l.m, "npu"); err != nil {
			t.Fatal(err)
		}
		d, _ := x.To("npu")
		d = d.Detach().RequiresGrad_(true)
		before := dispatch.CountsOf(l.op, device.NPU)
		got := nn.Call(l.m, d)
		if err := got.Sum().Backward(); err != nil {
			t.Fatal(err)
		}
		after := dispatch.CountsOf(l.op, device.NPU)
		if after.Decomposed-before.Decomposed != 1 || after.HostFallback != before.HostFallback {
			t.Errorf("%s on the NPU should be decomposed: %v, before %v", l.name, after, before)
		}
		close := func(what string, g, w *torch.Tensor) {
			gv, err := torch.ToSlice[float64](g.ToDType(torch.Float64))
			if err != nil {
				t.Fatalf("%s %s: %v", l.name, what, err)
			}
			wv, _ := torch.ToSlice[float64](w.ToDType(torch.Float64))
			for i := range wv {
				if math.Abs(gv[i]-wv[i]) > 1e-4*(1+math.Abs(wv[i])) {
					t.Errorf("%s %s [%d]: %v, want %v", l.name, what, i, gv[i], wv[i])
					return
				}
			}
		}
		close("output", got, want)
		close("input gradient", d.Grad(), hx.Grad())
		for i, p := range nn.Parameters(l.m) {
			close("parameter gradient", p.Grad(), wantGrads[i])
		}
	}
	settle(t)
}
