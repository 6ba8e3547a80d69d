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

// The average pools run natively (kernels_pool.go): aclnnAvgPool2d,
// aclnnAdaptiveAvgPool2d and their backward ops give the CPU's values and
// gradients bit for bit (the emulator sums in float32 in the CPU kernel's
// order) for every option, batched and unbatched, contiguous or not, with
// NaN, infinities and -0.0; the forms they do not take run by the next
// route.

func init() {
	// avg_pool2d on an Atlas training SoC (MTEMU_SOC=Ascend910A): its cube
	// unit takes no float32 with cubeMathType 0, and the chip no bfloat16
	children["avgpool_a1"] = func() {
		x := torch.Randn([]int{1, 2, 4, 4})
		d, _ := x.To("npu")
		for _, dt := range []torch.DType{torch.Float32, torch.BFloat16} {
			before := dispatch.CountsOf(kernel.OpAvgPool2d, device.NPU)
			got := torch.AvgPool2d(d.ToDType(dt), []int{2}, torch.AvgPoolOptions{})
			want := torch.AvgPool2d(x.ToDType(dt), []int{2}, torch.AvgPoolOptions{})
			after := dispatch.CountsOf(kernel.OpAvgPool2d, device.NPU)
			g, _ := torch.ToSlice[float64](got.ToDType(torch.Float64))
			w, _ := torch.ToSlice[float64](want.ToDType(torch.Float64))
			fmt.Printf("%v same=%v native=%d decomposed=%d\n", dt, fmt.Sprint(g) == fmt.Sprint(w), after.Native-before.Native,
				after.Decomposed-before.Decomposed)
		}
	}
}

// avgCase is an average pool and its ops (forward, backward).
type avgCase struct {
	name      string
	fwd, back kernel.OpID
	f         func(x *torch.Tensor) *torch.Tensor
}

func avgCases() []avgCase {
	avg := func(name string, k []int, o torch.AvgPoolOptions) avgCase {
		return avgCase{name, kernel.OpAvgPool2d, kernel.OpAvgPool2dBackward, func(x *torch.Tensor) *torch.Tensor {
			return torch.AvgPool2d(x, k, o)
		}}
	}
	adaptive := func(h, w int) avgCase {
		return avgCase{fmt.Sprintf("adaptive %dx%d", h, w), kernel.OpAdaptiveAvgPool2d, kernel.OpAdaptiveAvgPool2dBackward,
			func(x *torch.Tensor) *torch.Tensor { return torch.AdaptiveAvgPool2d(x, []int{h, w}) }}
	}
	div := func(v int) *int { return &v }
	return []avgCase{
		avg("3x3 s2 p1", []int{3}, torch.AvgPoolOptions{Stride: []int{2}, Padding: []int{1}}),
		avg("3x2 s(2,1) p1 exclude pad", []int{3, 2}, torch.AvgPoolOptions{Stride: []int{2, 1}, Padding: []int{1}, ExcludePad: true}),
		avg("3x3 s2 p1 ceil: a last window in the padding", []int{3}, torch.AvgPoolOptions{Stride: []int{2}, Padding: []int{1}, CeilMode: true}),
		avg("3x3 s2 p1 ceil exclude pad", []int{3}, torch.AvgPoolOptions{Stride: []int{2}, Padding: []int{1}, CeilMode: true, ExcludePad: true}),
		avg("2x2 divisor 3", []int{2}, torch.AvgPoolOptions{DivisorOverride: div(3)}),
		avg("2x3 s1 divisor -5 ceil", []int{2, 3}, torch.AvgPoolOptions{Stride: []int{1}, CeilMode: true, DivisorOverride: div(-5)}),
		avg("global 7x9", []int{7, 9}, torch.AvgPoolOptions{}),
		avg("1x9 (a long strip)", []int{1, 9}, torch.AvgPoolOptions{Stride: []int{1}}),
		adaptive(3, 4),
		adaptive(4, 5),
		adaptive(7, 2),
	}
}

// poolInput is a (2, 3, 7, 9) float64 input with NaN, infinities (+inf and
// -inf in one window) and -0.0 (a window of them).
func poolInput() *torch.Tensor {
	torch.ManualSeed(21)
	vals, _ := torch.ToSlice[float64](torch.Randn([]int{2, 3, 7, 9}, torch.WithDType(torch.Float64)))
	vals[4] = math.NaN()
	vals[9*2+2], vals[9*2+3] = math.Inf(1), math.Inf(-1)
	vals[63+40] = math.Inf(1)
	for _, i := range []int{126, 127, 135, 136} {
		vals[i] = math.Copysign(0, -1)
	}
	return torch.FromSlice(vals).Reshape(2, 3, 7, 9)
}

// poolLayouts are the layouts a test runs in: contiguous, transposed (the
// same values, H and W strides swapped), a slice, unbatched.
var poolLayouts = []struct {
	name string
	f    func(x *torch.Tensor) *torch.Tensor
}{
	{"contiguous", func(x *torch.Tensor) *torch.Tensor { return x }},
	{"transposed", func(x *torch.Tensor) *torch.Tensor { return x.Transpose(2, 3).Contiguous().Transpose(2, 3) }},
	{"sliced", func(x *torch.Tensor) *torch.Tensor { return x.Narrow(1, 1, 2) }},
	{"unbatched", func(x *torch.Tensor) *torch.Tensor { return x.Select(0, 1) }},
}

// TestAvgPoolsNative runs each pool forward and backward on the CPU and the
// NPU in float32 and bfloat16: the same bits, both ops natively.
func TestAvgPoolsNative(t *testing.T) {
	base := poolInput()
	for _, dt := range []torch.DType{torch.Float32, torch.BFloat16} {
		for _, l := range poolLayouts {
			h := l.f(base.ToDType(dt))
			d := l.f(mustNPU(t, base.ToDType(dt))) // the layout made on the device
			for _, pc := range avgCases() {
				name := fmt.Sprintf("%s of %v, %s", pc.name, dt, l.name)
				hx, dx := h.Detach().RequiresGrad_(true), d.Detach().RequiresGrad_(true)
				before, beforeBack := dispatch.CountsOf(pc.fwd, device.NPU), dispatch.CountsOf(pc.back, device.NPU)
				want, got := pc.f(hx), pc.f(dx)
				if err := want.Err(); err != nil {
					t.Fatalf("%s on the CPU: %v", name, err)
				}
				poolSame(t, name, got, want)
				up := torch.Randn(want.Shape(), torch.WithDType(torch.Float64)).ToDType(dt)
				if err := want.BackwardWith(torch.BackwardOptions{Grad: up}); err != nil {
					t.Fatal(err)
				}
				if err := got.BackwardWith(torch.BackwardOptions{Grad: mustNPU(t, up)}); err != nil {
					t.Fatal(err)
				}
				poolSame(t, name+" gradient", dx.Grad(), hx.Grad())
				after, afterBack := dispatch.CountsOf(pc.fwd, device.NPU), dispatch.CountsOf(pc.back, device.NPU)
				if after.Native != before.Native+1 || after.Total() != before.Total()+1 ||
					afterBack.Native != beforeBack.Native+1 || afterBack.Total() != beforeBack.Total()+1 {
					t.Errorf("%s: not native: forward %v (before %v), backward %v (before %v)", name, after, before, afterBack, beforeBack)
				}
			}
		}
	}
	settle(t)
}

// poolSame compares a pool's result on the NPU with the CPU's: the same
// bits on the emulator, which sums as the CPU kernel does; within float32's
// or bfloat16's rounding on CANN, whose graphs sum in their own order (the
// cube graph multiplies by 1/k, hicann/ops-nn aclnn_avgpool2d.cpp).
func poolSame(t *testing.T, what string, got, want *torch.Tensor) {
	t.Helper()
	if emulated() {
		sameBits(t, what, got, want)
		return
	}
	tol := 1e-6
	if want.DType() == torch.BFloat16 {
		tol = 1e-2
	}
	closeTo(t, what, got, want, tol, tol)
}

// mustNPU copies x to the NPU.
func mustNPU(t *testing.T, x *torch.Tensor) *torch.Tensor {
	t.Helper()
	d, err := x.To("npu")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// The forms the ops do not take run by the next route with the CPU's
// values: float64 by the decomposition, int64 (avg_pool2d's forward takes
// it on the CPU) on the host, every dtype by the decomposition with a
// cubeMathType other than 0; float16 is PyTorch's error on every device;
// an empty output needs no launch.
func TestAvgPoolsOtherRoutes(t *testing.T) {
	x := poolInput()
	run := func(name string, op kernel.OpID, h *torch.Tensor, f func(*torch.Tensor) *torch.Tensor) dispatch.Counts {
		t.Helper()
		before := dispatch.CountsOf(op, device.NPU)
		want, got := f(h), f(mustNPU(t, h))
		if want.Err() != nil {
			if got.Err() == nil || !strings.Contains(got.Err().Error(), "not implemented for 'Half'") {
				t.Errorf("%s: the CPU fails (%v), the NPU: %v", name, want.Err(), got.Err())
			}
		} else {
			sameBits(t, name, got, want)
		}
		after := dispatch.CountsOf(op, device.NPU)
		return dispatch.Counts{Native: after.Native - before.Native, Decomposed: after.Decomposed - before.Decomposed,
			HostFallback: after.HostFallback - before.HostFallback}
	}
	avg := func(x *torch.Tensor) *torch.Tensor {
		return torch.AvgPool2d(x, []int{3}, torch.AvgPoolOptions{Stride: []int{2}, Padding: []int{1}})
	}
	adaptive := func(x *torch.Tensor) *torch.Tensor { return torch.AdaptiveAvgPool2d(x, []int{3, 4}) }
	if c := run("float64 avg_pool2d", kernel.OpAvgPool2d, x, avg); c.Decomposed != 1 {
		t.Errorf("float64 avg_pool2d should be decomposed: %v", c)
	}
	if c := run("float64 adaptive_avg_pool2d", kernel.OpAdaptiveAvgPool2d, x, adaptive); c.Decomposed != 1 {
		t.Errorf("float64 adaptive_avg_pool2d should be decomposed: %v", c)
	}
	ints := torch.Randint(-50, 50, []int{2, 3, 7, 9})
	if c := run("int64 avg_pool2d", kernel.OpAvgPool2d, ints, avg); c.HostFallback != 1 {
		t.Errorf("int64 avg_pool2d should run on the host: %v", c)
	}
	if c := run("float16 avg_pool2d", kernel.OpAvgPool2d, x.ToDType(torch.Float16), avg); c.Total() != 0 {
		t.Errorf("float16 avg_pool2d fails before any route: %v", c)
	}
	empty := torch.Zeros([]int{0, 3, 7, 9})
	if c := run("an empty batch", kernel.OpAvgPool2d, empty, avg); c.Decomposed+c.HostFallback != 0 {
		t.Errorf("an empty batch: %v", c)
	}
	if c := run("an empty output", kernel.OpAdaptiveAvgPool2d, x.ToDType(torch.Float32), func(x *torch.Tensor) *torch.Tensor {
		return torch.AdaptiveAvgPool2d(x, []int{0, 4})
	}); c.Decomposed+c.HostFallback != 0 {
		t.Errorf("adaptive_avg_pool2d to 0 rows: %v", c)
	}
	t.Setenv("MINDTORCH_NPU_CUBE_MATH_TYPE", "2")
	if c := run("float32 with cubeMathType 2", kernel.OpAvgPool2d, x.ToDType(torch.Float32), avg); c.Decomposed != 1 {
		t.Errorf("with cubeMathType 2 avg_pool2d should be decomposed (float32 in float16 otherwise): %v", c)
	}
	settle(t)
}

// On an Atlas training chip float32 and bfloat16 avg pools are decomposed
// (the cube unit takes no float32 with cubeMathType 0; no bfloat16).
func TestAvgPoolOnAtlasTraining(t *testing.T) {
	if !emulated() {
		t.Skip("needs the emulator's MTEMU_SOC")
	}
	out := runChild(t, "avgpool_a1", "MTEMU_SOC=Ascend910A")
	for _, w := range []string{"float32 same=true native=0 decomposed=1", "bfloat16 same=true native=0 decomposed=1"} {
		if !strings.Contains(out, w) {
			t.Errorf("on Ascend910A the child did not say %q:\n%s", w, out)
		}
	}
}

// trainPooled trains a small network with nn.AvgPool2d and
// nn.AdaptiveAvgPool2d (to 2x3, not the mean) for steps of SGD on dev and
// returns the losses.
func trainPooled(t *testing.T, dev string, steps int) []float64 {
	t.Helper()
	torch.ManualSeed(9)
	model := nn.NewSequential(
		nn.NewConv2d(2, 4, []int{3}, nn.ConvConfig{Padding: []int{1}}),
		nn.ReLU(),
		nn.AvgPool2d([]int{3}, torch.AvgPoolOptions{Stride: []int{2}, Padding: []int{1}, CeilMode: true, ExcludePad: true}),
		nn.Tanh(),
		nn.AdaptiveAvgPool2d(2, 3),
		nn.Flatten(1, -1),
		nn.NewLinear(24, 3),
	)
	return trainSGD(t, dev, model, 0.1, []int{5, 2, 9, 7}, 3, steps)
}

// TestPooledNetTrainsOnNPUAsOnCPU: nn.AvgPool2d and nn.AdaptiveAvgPool2d in
// a network trained on the NPU, natively forward and backward, give the
// CPU's losses.
func TestPooledNetTrainsOnNPUAsOnCPU(t *testing.T) {
	trainsNativelyAsOnCPU(t, []kernel.OpID{kernel.OpAvgPool2d, kernel.OpAvgPool2dBackward, kernel.OpAdaptiveAvgPool2d,
		kernel.OpAdaptiveAvgPool2dBackward}, 8, 1e-5, trainPooled)
}
