package npu_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The fused norms on the NPU (kernels_norm.go): native_layer_norm and
// native_group_norm and their backwards run natively, one ACLNN op each,
// and give the CPU's outputs, means, rstds and gradients; the forms their
// ops do not take run by the decompositions.

// normRun is a norm of x with the optional weight and bias (nil: none):
// its output, mean and rstd.
type normRun func(x, w, b *torch.Tensor) (y, mean, rstd *torch.Tensor)

// runNorm runs f on copies of base, w, b (nil: none) that require grad, the
// input being view(base), and backward with g; it returns f's outputs, then
// the gradients of base, the weight and the bias.
func runNorm(t *testing.T, f normRun, view func(*torch.Tensor) *torch.Tensor, base, w, b, g *torch.Tensor) []*torch.Tensor {
	t.Helper()
	leaf := func(p *torch.Tensor) *torch.Tensor {
		if p == nil {
			return nil
		}
		return p.Detach().RequiresGrad_(true)
	}
	xs, ws, bs := leaf(base), leaf(w), leaf(b)
	y, mean, rstd := f(view(xs), ws, bs)
	if err := y.BackwardWith(torch.BackwardOptions{Grad: g}); err != nil {
		t.Fatal(err)
	}
	out := []*torch.Tensor{y, mean, rstd, xs.Grad()}
	for _, p := range []*torch.Tensor{ws, bs} {
		if p != nil {
			out = append(out, p.Grad())
		}
	}
	return out
}

// normCase is one input of a norm: a base tensor, the view of it normed,
// the weight and bias (nil: none) and the output's gradient.
type normCase struct {
	name       string
	base       *torch.Tensor
	view       func(*torch.Tensor) *torch.Tensor
	w, b, grad *torch.Tensor
}

// checkNorm runs c by f on the CPU and on the NPU, compares every output
// and gradient, and checks the routes the forward and backward ops took on
// the NPU (want: "native", "decomposed", or "none" when every output of
// the op is empty, which the dispatcher does not run).
func checkNorm(t *testing.T, c normCase, f normRun, ops [2]kernel.OpID, want [2]string) {
	t.Helper()
	cpu := runNorm(t, f, c.view, c.base, c.w, c.b, c.grad)
	var before [2]dispatch.Counts
	for i, op := range ops {
		before[i] = dispatch.CountsOf(op, device.NPU)
	}
	in := onNPU(t, c.base, c.grad)
	var w, b *torch.Tensor
	if c.w != nil {
		w = onNPU(t, c.w)[0]
	}
	if c.b != nil {
		b = onNPU(t, c.b)[0]
	}
	got := runNorm(t, f, c.view, in[0], w, b, in[1])
	names := []string{"output", "mean", "rstd", "input's gradient", "weight's gradient", "bias's gradient"}
	for i := range cpu {
		closeTo(t, c.name+": "+names[i], got[i], cpu[i], 1e-5, 1e-5)
	}
	for i, op := range ops {
		after := dispatch.CountsOf(op, device.NPU)
		var route string
		switch {
		case after.Total() == before[i].Total():
			route = "none"
		case after.Total() != before[i].Total()+1:
			route = "several times"
		case after.Native != before[i].Native:
			route = "native"
		case after.Decomposed != before[i].Decomposed:
			route = "decomposed"
		default:
			route = "host"
		}
		if route != want[i] {
			t.Errorf("%s: %s ran %s, want %s: %v, before %v", c.name, op, route, want[i], after, before[i])
		}
	}
}

// poisoned is x [3, 4] with NaN in row 0, +Inf in row 1 and -0.0 in row 2.
func poisoned() *torch.Tensor {
	return torch.FromSlice([]float32{1, float32(math.NaN()), 2, 3, float32(math.Inf(1)), 1, 2, 3, float32(math.Copysign(0, -1)), 1, -2, 0.5},
		torch.WithShape(3, 4))
}

func same(x *torch.Tensor) *torch.Tensor { return x }

// TestLayerNormOnNPU runs native_layer_norm and its backward by
// aclnnLayerNorm and aclnnLayerNormBackward over 1 to 3 dims, with and
// without weight and bias, on contiguous, transposed and sliced inputs,
// empty ones and ones holding NaN, ±Inf and -0.0.
func TestLayerNormOnNPU(t *testing.T) {
	torch.ManualSeed(21)
	type lcase struct {
		normCase
		shape []int
	}
	r := torch.Randn
	cases := []lcase{
		{normCase{"1 dim", r([]int{4, 7}), same, nil, nil, r([]int{4, 7})}, []int{7}},
		{normCase{"1 dim, weight and bias", r([]int{4, 7}), same, r([]int{7}), r([]int{7}), r([]int{4, 7})}, []int{7}},
		{normCase{"2 dims, weight", r([]int{3, 4, 5}), same, r([]int{4, 5}), nil, r([]int{3, 4, 5})}, []int{4, 5}},
		{normCase{"3 dims, weight and bias", r([]int{2, 3, 4, 5}), same, r([]int{3, 4, 5}), r([]int{3, 4, 5}), r([]int{2, 3, 4, 5})},
			[]int{3, 4, 5}},
		{normCase{"every dim", r([]int{3, 4}), same, r([]int{3, 4}), r([]int{3, 4}), r([]int{3, 4})}, []int{3, 4}},
		{normCase{"transposed", r([]int{6, 4, 5}), func(x *torch.Tensor) *torch.Tensor { return x.Transpose(0, 2) },
			r([]int{4, 6}), r([]int{4, 6}), r([]int{5, 4, 6})}, []int{4, 6}},
		{normCase{"sliced", r([]int{6, 8}), func(x *torch.Tensor) *torch.Tensor { return x.Narrow(1, 2, 5).Narrow(0, 1, 4) },
			r([]int{5}), r([]int{5}), r([]int{4, 5})}, []int{5}},
		{normCase{"empty batch", r([]int{0, 4}), same, r([]int{4}), r([]int{4}), r([]int{0, 4})}, []int{4}},
		{normCase{"NaN, Inf, -0", poisoned(), same, r([]int{4}), r([]int{4}), r([]int{3, 4})}, []int{4}},
	}
	for _, c := range cases {
		f := func(x, w, b *torch.Tensor) (y, mean, rstd *torch.Tensor) {
			return torch.NativeLayerNorm(x, c.shape, w, b, 1e-5)
		}
		want := [2]string{"native", "native"}
		if c.base.Numel() == 0 { // every output of the forward is empty: nothing runs
			want[0] = "none"
		}
		checkNorm(t, c.normCase, f, [2]kernel.OpID{kernel.OpLayerNorm, kernel.OpLayerNormBackward}, want)
	}
	// Rows of no element: PyTorch's mean 0 and rstd NaN (aclnnLayerNorm's
	// too; the CPU kernel gives a NaN mean); the backward's outputs are all
	// empty.
	d := onNPU(t, torch.Zeros([]int{3, 0}))[0]
	y, mean, rstd := torch.NativeLayerNorm(d, []int{0}, nil, nil, 1e-5)
	closeTo(t, "empty rows: output", y, torch.Zeros([]int{3, 0}), 0, 0)
	closeTo(t, "empty rows: mean", mean, torch.Zeros([]int{3, 1}), 0, 0)
	closeTo(t, "empty rows: rstd", rstd, torch.Full([]int{3, 1}, math.NaN()), 0, 0)
	settle(t)
}

// TestGroupNormOnNPU runs native_group_norm and its backward by
// aclnnGroupNorm and aclnnGroupNormBackward on 2-D to 4-D inputs, in one
// group to one per channel, with and without gamma and beta, on a permuted
// input; an empty batch's backward, which the op does not write, is
// decomposed.
func TestGroupNormOnNPU(t *testing.T) {
	torch.ManualSeed(22)
	type gcase struct {
		normCase
		groups int
		back   string
	}
	r := torch.Randn
	cases := []gcase{
		{normCase{"2-D", r([]int{4, 6}), same, nil, nil, r([]int{4, 6})}, 3, "native"},
		{normCase{"3-D, gamma and beta", r([]int{2, 6, 5}), same, r([]int{6}), r([]int{6}), r([]int{2, 6, 5})}, 2, "native"},
		{normCase{"4-D, a group per channel", r([]int{2, 4, 3, 3}), same, r([]int{4}), r([]int{4}), r([]int{2, 4, 3, 3})}, 4, "native"},
		{normCase{"one group, gamma", r([]int{3, 6, 2, 2}), same, r([]int{6}), nil, r([]int{3, 6, 2, 2})}, 1, "native"},
		{normCase{"permuted", r([]int{5, 2, 6}), func(x *torch.Tensor) *torch.Tensor { return x.Permute(1, 2, 0) },
			r([]int{6}), r([]int{6}), r([]int{2, 6, 5})}, 3, "native"},
		{normCase{"NaN, Inf, -0", poisoned(), same, r([]int{4}), r([]int{4}), r([]int{3, 4})}, 2, "native"},
		{normCase{"empty batch", r([]int{0, 4, 3}), same, r([]int{4}), r([]int{4}), r([]int{0, 4, 3})}, 2, "decomposed"},
	}
	for _, c := range cases {
		f := func(x, w, b *torch.Tensor) (y, mean, rstd *torch.Tensor) {
			return torch.NativeGroupNorm(x, w, b, c.groups, 1e-5)
		}
		want := [2]string{"native", c.back}
		if c.base.Numel() == 0 { // every output of the forward is empty: nothing runs
			want[0] = "none"
		}
		checkNorm(t, c.normCase, f, [2]kernel.OpID{kernel.OpGroupNorm, kernel.OpGroupNormBackward}, want)
	}
	// Channels of no element: PyTorch's mean 0 and rstd NaN (aclnnGroupNorm's too).
	d := onNPU(t, torch.Zeros([]int{2, 4, 0}))[0]
	y, mean, rstd := torch.NativeGroupNorm(d, nil, nil, 2, 1e-5)
	closeTo(t, "empty channels: output", y, torch.Zeros([]int{2, 4, 0}), 0, 0)
	closeTo(t, "empty channels: mean", mean, torch.Zeros([]int{2, 2}), 0, 0)
	closeTo(t, "empty channels: rstd", rstd, torch.Full([]int{2, 2}, math.NaN()), 0, 0)
	settle(t)
}

// The forms the ops do not take run by the decompositions with the CPU's
// values: float64 (no ACLNN norm takes DOUBLE), RMS norm (no aclnnRmsNorm
// here), a group norm with eps 0 (aclnnGroupNorm takes eps > 0; its
// backward has no eps and stays native).
func TestNormDeclinesToDecompositions(t *testing.T) {
	torch.ManualSeed(23)
	r := torch.Randn
	x64, w64 := r([]int{3, 4, 5}).ToDType(torch.Float64), r([]int{5}).ToDType(torch.Float64)
	ln := [2]kernel.OpID{kernel.OpLayerNorm, kernel.OpLayerNormBackward}
	gn := [2]kernel.OpID{kernel.OpGroupNorm, kernel.OpGroupNormBackward}
	checkNorm(t, normCase{"float64 layer norm", x64, same, w64, w64, x64}, func(x, w, b *torch.Tensor) (y, mean, rstd *torch.Tensor) {
		return torch.NativeLayerNorm(x, []int{5}, w, b, 1e-5)
	}, ln, [2]string{"decomposed", "decomposed"})
	checkNorm(t, normCase{"float64 group norm", x64, same, nil, nil, x64}, func(x, w, b *torch.Tensor) (y, mean, rstd *torch.Tensor) {
		return torch.NativeGroupNorm(x, w, b, 1, 1e-5)
	}, gn, [2]string{"decomposed", "decomposed"})
	checkNorm(t, normCase{"RMS norm", r([]int{3, 5}), same, r([]int{5}), nil, r([]int{3, 5})},
		func(x, w, b *torch.Tensor) (y, mean, rstd *torch.Tensor) {
			y, rstd = torch.FusedRMSNorm(x, []int{5}, w, 1e-6)
			return y, rstd, rstd
		}, ln, [2]string{"decomposed", "decomposed"})
	checkNorm(t, normCase{"group norm with eps 0", r([]int{2, 4, 3}), same, r([]int{4}), r([]int{4}), r([]int{2, 4, 3})},
		func(x, w, b *torch.Tensor) (y, mean, rstd *torch.Tensor) { return torch.NativeGroupNorm(x, w, b, 2, 0) },
		gn, [2]string{"decomposed", "native"})
	settle(t)
}

func init() {
	// the norms on another SoC (MTEMU_SOC): the route each op takes, and
	// whether the values are the CPU's
	children["norm_soc"] = func() {
		torch.ManualSeed(24)
		x, w, g := torch.Randn([]int{2, 4, 3}), torch.Randn([]int{4}), torch.Randn([]int{2, 4, 3})
		for _, c := range []struct {
			name string
			op   [2]kernel.OpID
			f    func(x, w *torch.Tensor) *torch.Tensor
		}{
			{"layer_norm", [2]kernel.OpID{kernel.OpLayerNorm, kernel.OpLayerNormBackward}, func(x, w *torch.Tensor) *torch.Tensor {
				y, _, _ := torch.NativeLayerNorm(x.Transpose(1, 2), []int{4}, w, nil, 1e-5)
				return y.Transpose(1, 2)
			}},
			{"group_norm", [2]kernel.OpID{kernel.OpGroupNorm, kernel.OpGroupNormBackward}, func(x, w *torch.Tensor) *torch.Tensor {
				y, _, _ := torch.NativeGroupNorm(x, w, nil, 2, 1e-5)
				return y
			}},
		} {
			run := func(x, w, g *torch.Tensor) []*torch.Tensor {
				xs, ws := x.Detach().RequiresGrad_(true), w.Detach().RequiresGrad_(true)
				y := c.f(xs, ws)
				if err := y.BackwardWith(torch.BackwardOptions{Grad: g}); err != nil {
					fmt.Println("backward:", err)
				}
				return []*torch.Tensor{y, xs.Grad(), ws.Grad()}
			}
			var before [2]dispatch.Counts
			for i, op := range c.op {
				before[i] = dispatch.CountsOf(op, device.NPU)
			}
			d := make([]*torch.Tensor, 3)
			for i, t := range []*torch.Tensor{x, w, g} {
				d[i], _ = t.To("npu")
			}
			got, want := run(d[0], d[1], d[2]), run(x, w, g)
			ok := true
			for i := range want {
				ok = ok && sameValues(got[i], want[i])
			}
			var routes []string
			for i, op := range c.op {
				after := dispatch.CountsOf(op, device.NPU)
				routes = append(routes, fmt.Sprintf("native=%d decomposed=%d", after.Native-before[i].Native,
					after.Decomposed-before[i].Decomposed))
			}
			fmt.Printf("%s same=%v forward %s backward %s\n", c.name, ok, routes[0], routes[1])
		}
	}
}

// Per chip: on an Atlas training SoC (no BFLOAT16, float32 taken) all four
// ops run natively; on an Atlas inference SoC aclnnLayerNorm and
// aclnnGroupNormBackward, which their docs do not list there, decline and
// the decompositions run.
func TestNormsPerChip(t *testing.T) {
	if !emulated() {
		t.Skip("needs the emulator's MTEMU_SOC")
	}
	for soc, wants := range map[string][]string{
		"Ascend910A": {"layer_norm same=true forward native=1 decomposed=0 backward native=1 decomposed=0",
			"group_norm same=true forward native=1 decomposed=0 backward native=1 decomposed=0"},
		"Ascend310P3": {"layer_norm same=true forward native=0 decomposed=1 backward native=1 decomposed=0",
			"group_norm same=true forward native=1 decomposed=0 backward native=0 decomposed=1"},
	} {
		out := runChild(t, "norm_soc", "MTEMU_SOC="+soc)
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Errorf("on %s the child did not say %q:\n%s", soc, w, out)
			}
		}
	}
}

// trainNorms trains a small network with nn.GroupNorm and nn.LayerNorm
// layers for steps steps of SGD on device dev, from the same seed and
// batch, and returns the losses.
func trainNorms(t *testing.T, dev string, steps int) []float64 {
	t.Helper()
	torch.ManualSeed(25)
	model := nn.NewSequential(
		nn.NewLinear(6, 12),
		nn.NewGroupNorm(3, 12, true),
		nn.ReLU(),
		nn.NewLinear(12, 10),
		nn.NewLayerNorm([]int{10}),
		nn.ReLU(),
		nn.NewLinear(10, 4),
	)
	return trainSGD(t, dev, model, 0.1, []int{16, 6}, 4, steps)
}

// TestNormLayersTrainOnNPUAsOnCPU trains nn.GroupNorm and nn.LayerNorm on
// the NPU, natively, and on the CPU: the losses of 12 steps agree.
func TestNormLayersTrainOnNPUAsOnCPU(t *testing.T) {
	trainsNativelyAsOnCPU(t, []kernel.OpID{kernel.OpLayerNorm, kernel.OpLayerNormBackward, kernel.OpGroupNorm,
		kernel.OpGroupNormBackward}, 12, 1e-4, trainNorms)
}

// trainsNativelyAsOnCPU runs train for steps on the CPU and on the NPU: the
// losses agree within tol (relative), the CPU's fall, and each of ops runs
// natively once per step on the NPU.
func trainsNativelyAsOnCPU(t *testing.T, ops []kernel.OpID, steps int, tol float64,
	train func(t *testing.T, dev string, steps int) []float64) {
	t.Helper()
	before := make([]dispatch.Counts, len(ops))
	for i, op := range ops {
		before[i] = dispatch.CountsOf(op, device.NPU)
	}
	cpu := train(t, "cpu", steps)
	npu := train(t, "npu", steps)
	for i := range cpu {
		if math.Abs(npu[i]-cpu[i]) > tol*math.Abs(cpu[i]) {
			t.Errorf("step %d: loss %.8g on the NPU, %.8g on the CPU", i, npu[i], cpu[i])
		}
	}
	if !(cpu[steps-1] < cpu[0]) {
		t.Errorf("the loss did not fall: %v -> %v", cpu[0], cpu[steps-1])
	}
	for i, op := range ops {
		if c := dispatch.CountsOf(op, device.NPU); c.Native != before[i].Native+uint64(steps) || c.Total() != before[i].Total()+uint64(steps) {
			t.Errorf("%s: not native in every step: %v, before %v", op, c, before[i])
		}
	}
	settle(t)
}
