package dispatch_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// same fails unless got (on any device) holds want's values, NaN
// included.
func same(t *testing.T, what string, got, want *torch.Tensor) {
	t.Helper()
	g, err := torch.ToSlice[float64](got.ToDType(torch.Float64))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	w, err := torch.ToSlice[float64](want.ToDType(torch.Float64))
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(g) != len(w) {
		t.Fatalf("%s: %d values, want %d", what, len(g), len(w))
	}
	for i := range g {
		if g[i] != w[i] && !(math.IsNaN(g[i]) && math.IsNaN(w[i])) {
			t.Fatalf("%s: got %v, want %v", what, g, w)
		}
	}
}

// routed fails unless op on the NPU ran by route r since counts were taken.
func routed(t *testing.T, op kernel.OpID, before dispatch.Counts, r dispatch.Route) {
	t.Helper()
	after := dispatch.CountsOf(op, device.NPU)
	n := map[dispatch.Route]uint64{dispatch.Native: after.Native - before.Native,
		dispatch.Decomposed: after.Decomposed - before.Decomposed, dispatch.HostFallback: after.HostFallback - before.HostFallback}
	if n[r] == 0 {
		t.Errorf("%s on the NPU did not run by %s: %+v", op, r, n)
	}
}

func npuCopy(t *testing.T, x *torch.Tensor) *torch.Tensor {
	t.Helper()
	y, err := x.To("npu:0")
	if err != nil {
		t.Fatal(err)
	}
	return y
}

func TestGatherDecomposition(t *testing.T) {
	defer kernel.SwapKernel(kernel.OpGather, device.NPU, nil)() // the NPU runs gather natively (aclnnGather)
	x := torch.FromSlice([]float32{1, float32(math.Inf(1)), 3, float32(math.NaN()), 5, 6}, torch.WithShape(2, 3))
	idx := torch.FromSlice([]int64{2, 1, 0, 0}, torch.WithShape(2, 2))
	before := dispatch.CountsOf(kernel.OpGather, device.NPU)
	same(t, "gather dim 1", npuCopy(t, x).Gather(1, npuCopy(t, idx)), x.Gather(1, idx))
	routed(t, kernel.OpGather, before, dispatch.Decomposed)
	idx0 := torch.FromSlice([]int64{1, 0}, torch.WithShape(1, 2))
	same(t, "gather dim 0", npuCopy(t, x).Gather(0, npuCopy(t, idx0)), x.Gather(0, idx0))
	xi := torch.FromSlice([]int32{7, -8, 9}, torch.WithShape(1, 3))
	idxi := torch.FromSlice([]int64{2, 2, 1}, torch.WithShape(1, 3))
	same(t, "gather int32", npuCopy(t, xi).Gather(1, npuCopy(t, idxi)), xi.Gather(1, idxi))

	bad := torch.FromSlice([]int64{3, 0}, torch.WithShape(1, 2))
	err := npuCopy(t, x).Gather(1, npuCopy(t, bad)).Err()
	want := x.Gather(1, bad).Err()
	if !errors.Is(err, torch.ErrIndex) || want == nil || !strings.Contains(err.Error(), "index 3 is out of bounds for dimension 1 with size 3") {
		t.Errorf("gather out of range on the NPU: %v (the CPU: %v)", err, want)
	}
}

func TestClampDecomposition(t *testing.T) {
	x := torch.FromSlice([]float32{-2, 0.5, float32(math.NaN()), 3, float32(math.Inf(-1))})
	before := dispatch.CountsOf(kernel.OpClamp, device.NPU)
	same(t, "clamp min", npuCopy(t, x).Clamp(0, nil), x.Clamp(0, nil))
	same(t, "clamp max", npuCopy(t, x).Clamp(nil, 1), x.Clamp(nil, 1))
	routed(t, kernel.OpClamp, before, dispatch.Decomposed)
	xi := torch.FromSlice([]int64{-5, 2, 9})
	same(t, "clamp int64 with a float bound", npuCopy(t, xi).Clamp(nil, 2.5), xi.Clamp(nil, 2.5))
	y := npuCopy(t, x)
	y.Clamp_(-1, nil)
	same(t, "clamp_ min", y, x.Clamp(-1, nil))
}

// TestCheapDecompositions runs the decompositions of amin and isnan on
// the NPU against the CPU, and relu6 and logical_not, native since their
// ACLNN ops (aclnnHardtanh, aclnnLogicalNot) are called, whose
// decompositions remain for the SoCs that decline them.
func TestCheapDecompositions(t *testing.T) {
	defer kernel.SwapKernel(kernel.OpAmin, device.NPU, nil)() // the NPU runs amin natively (aclnnAmin)
	nan, inf := math.NaN(), math.Inf(1)
	x := torch.FromSlice([]float32{-2, 7, float32(nan), 0, 3.5, float32(-inf)}, torch.WithShape(2, 3))
	d := npuCopy(t, x)
	cases := []struct {
		op        kernel.OpID
		got, want *torch.Tensor
		route     dispatch.Route
	}{
		{kernel.OpRelu6, d.Relu6(), x.Relu6(), dispatch.Native},
		{kernel.OpAmin, d.Amin(1), x.Amin(1), dispatch.Decomposed},
		{kernel.OpAmin, d.AminKeepDim(0), x.AminKeepDim(0), dispatch.Decomposed},
		{kernel.OpIsNan, d.IsNan(), x.IsNan(), dispatch.Decomposed},
		{kernel.OpLogicalNot, d.LogicalNot(), x.LogicalNot(), dispatch.Native},
	}
	for _, c := range cases {
		if c.got.DType() != c.want.DType() || c.got.Dim() != c.want.Dim() {
			t.Errorf("%s: %v %v, want %v %v", c.op, c.got.DType(), c.got.Shape(), c.want.DType(), c.want.Shape())
		}
		same(t, c.op.String(), c.got, c.want)
		n := dispatch.CountsOf(c.op, device.NPU)
		if ran := map[dispatch.Route]uint64{dispatch.Native: n.Native, dispatch.Decomposed: n.Decomposed}[c.route]; ran == 0 {
			t.Errorf("%s on the NPU did not run by %s", c.op, c.route)
		}
	}
	xi := torch.FromSlice([]int32{5, -7, 2})
	same(t, "amin int32", npuCopy(t, xi).Amin(), xi.Amin())
	xb := torch.FromSlice([]bool{true, false})
	same(t, "amin bool (on the host)", npuCopy(t, xb).Amin(), xb.Amin())
}

// TestHostFallback runs ops the NPU lacks on views (strided, offset,
// in place) and checks them against the CPU.
func TestHostFallback(t *testing.T) {
	x := torch.Arange(24, torch.WithDType(torch.Float32)).View(4, 6).DivScalar(7)
	d := npuCopy(t, x)
	before := dispatch.CountsOf(kernel.OpRoundDecimals, device.NPU)
	view := func(x *torch.Tensor) *torch.Tensor { return x.Narrow(0, 1, 2).Transpose(0, 1).Narrow(0, 1, 3) }
	same(t, "round(decimals=2) of a view", view(d).RoundDecimals(2), view(x).RoundDecimals(2))
	routed(t, kernel.OpRoundDecimals, before, dispatch.HostFallback)

	x2, d2 := x.Clone(), d.Clone()
	view(x2).RoundDecimals_(2)
	view(d2).RoundDecimals_(2)
	same(t, "round_(decimals=2) into a view", d2, x2)

	x3, d3 := x.Clone(), d.Clone()
	torch.Into(view(x3)).Hypot(view(x), view(x).AddScalar(1))
	torch.Into(view(d3)).Hypot(view(d), view(d).AddScalar(1))
	same(t, "hypot into a view", d3, x3)

	mask := x.GtScalar(1)
	same(t, "masked_select", d.MaskedSelect(npuCopy(t, mask)), x.MaskedSelect(mask))
	g1, g2 := torch.NewGenerator(5), torch.NewGenerator(5)
	// float64 normals draw on the host (the NPU's kernel draws in float32)
	same(t, "seeded randn", torch.Randn([]int{7}, torch.WithDType(torch.Float64), torch.WithDevice("npu:0"), torch.WithGenerator(g1)),
		torch.Randn([]int{7}, torch.WithDType(torch.Float64), torch.WithGenerator(g2)))
	e := torch.Empty([]int{0, 3}, torch.WithDevice("npu:0")).RoundDecimals(2)
	if e.Err() != nil || e.Numel() != 0 {
		t.Errorf("round(decimals=2) of an empty tensor on the NPU: %v", e.Err())
	}
	if err := d.RoundDecimals(2).Add(torch.Ones([]int{5}, torch.WithDevice("npu:0"))).Err(); !errors.Is(err, torch.ErrShape) {
		t.Errorf("a shape error after a host fallback: %v", err)
	}
}

func TestRoutes(t *testing.T) {
	if r := dispatch.Routes(kernel.OpGather, device.NPU); len(r) != 3 || r[0] != dispatch.Native || r[1] != dispatch.Decomposed ||
		r[2] != dispatch.HostFallback {
		t.Errorf("gather on the NPU: %v", r)
	}
	if r := dispatch.Routes(kernel.OpAdd, device.CPU); len(r) != 1 || r[0] != dispatch.Native {
		t.Errorf("add on the CPU: %v", r)
	}
	if r := dispatch.Routes(kernel.OpInvalid, device.CPU); r != nil {
		t.Errorf("the invalid op: %v", r)
	}
}
