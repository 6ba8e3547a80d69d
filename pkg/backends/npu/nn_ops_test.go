package npu_test

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

// The nn and indexing ops (kernels_nn.go): each runs natively (one ACLNN
// op, or a few) and gives the CPU's values, the index ops give PyTorch's
// errors for an index out of range, and the forms an ACLNN op does not take
// run on the host. Each op alone on every dtype and layout is
// TestConformance's.

// onNPU copies CPU tensors to the NPU.
func onNPU(t *testing.T, xs ...*torch.Tensor) []*torch.Tensor {
	t.Helper()
	out := make([]*torch.Tensor, len(xs))
	for i, x := range xs {
		d, err := x.To("npu")
		if err != nil {
			t.Fatal(err)
		}
		out[i] = d
	}
	return out
}

// closeTo compares got (on the NPU) with want (on the CPU): shape, and
// values within rtol of the largest magnitude of want plus atol.
func closeTo(t *testing.T, name string, got, want *torch.Tensor, rtol, atol float64) {
	t.Helper()
	if err := got.Err(); err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if !equalShapes(got.Shape(), want.Shape()) {
		t.Errorf("%s: shape %v, CPU %v", name, got.Shape(), want.Shape())
		return
	}
	g, err := torch.ToSlice[float64](got.ToDType(torch.Float64))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	w, _ := torch.ToSlice[float64](want.ToDType(torch.Float64))
	scale := 0.0
	for _, v := range w {
		scale = math.Max(scale, math.Abs(v))
	}
	for i := range w {
		if math.Abs(g[i]-w[i]) > atol+rtol*scale || math.IsNaN(g[i]) != math.IsNaN(w[i]) {
			t.Errorf("%s: [%d] = %v, CPU %v", name, i, g[i], w[i])
			return
		}
	}
}

// TestNNOpsRunNatively runs each op on float32 inputs on the CPU and on the
// NPU and checks the values and that the NPU ran it natively.
func TestNNOpsRunNatively(t *testing.T) {
	torch.ManualSeed(7)
	x := torch.Randn([]int{4, 6})
	idx := torch.FromSlice([]int64{3, 0, 5, 5}, torch.WithShape(4))
	gidx := torch.FromSlice([]int64{1, 0, 2, 2, 0, 1, 3, 3, 1, 0, 0, 2}, torch.WithShape(2, 6))
	mask := torch.FromSlice([]bool{true, false, false, true, true, false}, torch.WithShape(6))
	src := torch.Randn([]int{2, 6})
	many := make([]*torch.Tensor, 20)
	for i := range many {
		many[i] = torch.Randn([]int{2, 1 + i%3})
	}
	type fn = func(in ...*torch.Tensor) *torch.Tensor
	cases := []struct {
		name string
		op   kernel.OpID
		f    fn
		in   []*torch.Tensor
	}{
		{"index_select", kernel.OpIndexSelect, func(in ...*torch.Tensor) *torch.Tensor { return in[0].IndexSelect(1, in[1]) }, []*torch.Tensor{x, idx}},
		{"index_select of a transposed view", kernel.OpIndexSelect, func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].T().IndexSelect(0, in[1])
		}, []*torch.Tensor{x, idx}},
		{"gather", kernel.OpGather, func(in ...*torch.Tensor) *torch.Tensor { return in[0].Gather(0, in[1]) }, []*torch.Tensor{x, gidx}},
		{"scatter", kernel.OpScatter, func(in ...*torch.Tensor) *torch.Tensor { return in[0].Scatter(0, in[1], in[2]) }, []*torch.Tensor{x, gidx, src}},
		{"scatter value", kernel.OpScatter, func(in ...*torch.Tensor) *torch.Tensor { return in[0].ScatterValue(0, in[1], 2.5) }, []*torch.Tensor{x, gidx}},
		{"scatter_add in place", kernel.OpScatterAdd, func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].Clone().ScatterAdd_(0, in[1], in[2])
		}, []*torch.Tensor{x, gidx, src}},
		{"index_add", kernel.OpIndexAdd, func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].IndexAdd(1, in[1], in[2], 2)
		}, []*torch.Tensor{x, idx, torch.Ones([]int{4, 4})}},
		{"masked_fill", kernel.OpMaskedFill, func(in ...*torch.Tensor) *torch.Tensor { return in[0].MaskedFill(in[1], -1.5) }, []*torch.Tensor{x, mask}},
		{"masked_fill_", kernel.OpMaskedFill, func(in ...*torch.Tensor) *torch.Tensor { return in[0].Clone().MaskedFill_(in[1], 3) }, []*torch.Tensor{x, mask}},
		{"cumsum", kernel.OpCumsum, func(in ...*torch.Tensor) *torch.Tensor { return in[0].Cumsum(1) }, []*torch.Tensor{x}},
		{"argmin", kernel.OpArgmin, func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].ArgminDim(0, false).ToDType(torch.Float32).Add(in[0].Argmin().ToDType(torch.Float32))
		}, []*torch.Tensor{x}},
		{"amin", kernel.OpAmin, func(in ...*torch.Tensor) *torch.Tensor { return in[0].Amin(1) }, []*torch.Tensor{x}},
		{"max along a dim", kernel.OpMaxDim, func(in ...*torch.Tensor) *torch.Tensor {
			v, i := in[0].MaxDim(1, true)
			return v.Add(i.ToDType(torch.Float32))
		}, []*torch.Tensor{x}},
		{"min along a dim", kernel.OpMinDim, func(in ...*torch.Tensor) *torch.Tensor {
			v, i := in[0].MinDim(0, false)
			return v.Add(i.ToDType(torch.Float32))
		}, []*torch.Tensor{x}},
		{"prod", kernel.OpProd, func(in ...*torch.Tensor) *torch.Tensor { return in[0].Prod(1).Add(in[0].Prod()) }, []*torch.Tensor{x}},
		{"sort", kernel.OpSort, func(in ...*torch.Tensor) *torch.Tensor {
			v, i := in[0].Sort(1, true)
			return v.Add(i.ToDType(torch.Float32))
		}, []*torch.Tensor{x}},
		{"topk", kernel.OpTopk, func(in ...*torch.Tensor) *torch.Tensor {
			v, i := in[0].Topk(3, 1, false)
			return v.Add(i.ToDType(torch.Float32))
		}, []*torch.Tensor{x}},
		{"cat of 20 tensors", kernel.OpCat, func(in ...*torch.Tensor) *torch.Tensor { return torch.Cat(in, 1) }, many},
		{"flip", kernel.OpFlip, func(in ...*torch.Tensor) *torch.Tensor { return in[0].Flip(0, 1) }, []*torch.Tensor{x}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.f(c.in...)
			if err := want.Err(); err != nil {
				t.Fatal(err)
			}
			before := dispatch.CountsOf(c.op, device.NPU)
			got := c.f(onNPU(t, c.in...)...)
			closeTo(t, c.name, got, want, 1e-6, 1e-6)
			if after := dispatch.CountsOf(c.op, device.NPU); after.Native == before.Native || after.HostFallback != before.HostFallback {
				t.Errorf("%s did not run natively: %v, before %v", c.op, after, before)
			}
		})
	}
	settle(t)
}

// TestBatchNormOnNPU runs native_batch_norm, training and not, and its
// backward on the NPU: aclnnBatchNorm's variance becomes the invstd, and
// aclnnBatchNormBackward gets invstd^-2 as its variance.
func TestBatchNormOnNPU(t *testing.T) {
	torch.ManualSeed(11)
	x, w, b := torch.Randn([]int{4, 3, 5}), torch.Randn([]int{3}), torch.Randn([]int{3})
	rm, rv := torch.Randn([]int{3}), torch.Rand([]int{3}).AddScalar(0.5)
	g := torch.Randn([]int{4, 3, 5})
	run := func(in []*torch.Tensor, training bool) []*torch.Tensor {
		xs := in[0].Detach().RequiresGrad_(true)
		ws := in[1].Detach().RequiresGrad_(true)
		y, mean, invstd, v := torch.NativeBatchNorm(xs, ws, in[2], in[3], in[4], training, 1e-5)
		if err := y.BackwardWith(torch.BackwardOptions{Grad: in[5]}); err != nil {
			t.Fatal(err)
		}
		out := []*torch.Tensor{y, xs.Grad(), ws.Grad()}
		if training {
			out = append(out, mean, invstd, v)
		}
		return out
	}
	for _, training := range []bool{true, false} {
		before := dispatch.CountsOf(kernel.OpBatchNorm, device.NPU)
		beforeBack := dispatch.CountsOf(kernel.OpBatchNormBackward, device.NPU)
		want := run([]*torch.Tensor{x, w, b, rm, rv, g}, training)
		got := run(onNPU(t, x, w, b, rm, rv, g), training)
		for i := range want {
			closeTo(t, []string{"output", "input's gradient", "weight's gradient", "mean", "invstd", "var"}[i], got[i], want[i], 2e-6, 2e-6)
		}
		if after := dispatch.CountsOf(kernel.OpBatchNorm, device.NPU); after.Native != before.Native+1 {
			t.Errorf("training=%v: native_batch_norm did not run natively: %v, before %v", training, after, before)
		}
		if after := dispatch.CountsOf(kernel.OpBatchNormBackward, device.NPU); after.Native != beforeBack.Native+1 {
			t.Errorf("training=%v: the backward did not run natively: %v, before %v", training, after, beforeBack)
		}
	}
	settle(t)
}

// An index out of range is PyTorch's error on the NPU too (the index is
// read on the host first: the ACLNN kernels do not check it), and a
// negative index_add index, which aclnnIndexAdd does not take, runs on the
// host with PyTorch's meaning.
func TestIndexErrorsOnNPU(t *testing.T) {
	d := onNPU(t, torch.Ones([]int{3, 4}), torch.FromSlice([]int64{1, 4}), torch.FromSlice([]int64{0, 7, 1}, torch.WithShape(1, 3)),
		torch.FromSlice([]int32{-1, 2}))
	x, oob, gidx, neg := d[0], d[1], d[2], d[3]
	for _, c := range []struct {
		name string
		got  *torch.Tensor
		text string
	}{
		{"index_select", x.IndexSelect(1, oob), "INDICES element is out of DATA bounds, id=4 axis_dim=4"},
		{"gather", x.Gather(1, gidx), "index 7 is out of bounds for dimension 1 with size 4"},
		{"scatter", x.ScatterValue(1, gidx, 1.0), "index 7 is out of bounds for dimension 1 with size 4"},
		{"scatter_add", x.ScatterAdd(1, gidx, x.Narrow(0, 0, 1)), "index 7 is out of bounds for dimension 1 with size 4"},
		{"index_add", x.IndexAdd(1, oob, torch.Ones([]int{3, 2}, torch.WithDevice("npu")), 1), "index out of range in self"},
	} {
		if err := c.got.Err(); !errors.Is(err, torch.ErrIndex) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: %v; want %q", c.name, err, c.text)
		}
	}
	before := dispatch.CountsOf(kernel.OpIndexAdd, device.NPU)
	got := x.IndexAdd(1, neg, torch.Ones([]int{3, 2}, torch.WithDevice("npu")), 2)
	want := torch.Ones([]int{3, 4}).IndexAdd(1, torch.FromSlice([]int32{-1, 2}), torch.Ones([]int{3, 2}), 2)
	closeTo(t, "index_add with a negative index", got, want, 0, 0)
	if after := dispatch.CountsOf(kernel.OpIndexAdd, device.NPU); after.HostFallback != before.HostFallback+1 {
		t.Errorf("index_add with a negative index should run on the host: %v, before %v", after, before)
	}
	settle(t)
}

// Float32 convolutions: aclnnConvolution takes no FLOAT with cubeMathType 0
// (KEEP_DTYPE), so by default they run on the host with PyTorch's values;
// with MINDTORCH_NPU_CUBE_MATH_TYPE=1 they run natively in HF32 (the
// emulator rounds the operands to 11 stored bits), forward and backward,
// strided, dilated, grouped and transposed, within HF32's precision.
func TestConvolutionOnNPU(t *testing.T) {
	torch.ManualSeed(5)
	x, w, b := torch.Randn([]int{2, 4, 7, 6}), torch.Randn([]int{6, 2, 3, 2}), torch.Randn([]int{6})
	g := torch.Randn([]int{2, 6, 4, 6})
	opts := torch.ConvOptions{Stride: []int{2, 1}, Padding: []int{1, 1}, Dilation: []int{1, 2}, Groups: 2}
	run := func(in []*torch.Tensor) []*torch.Tensor {
		xs, ws := in[0].Detach().RequiresGrad_(true), in[1].Detach().RequiresGrad_(true)
		y := torch.Conv2d(xs, ws, in[2], opts)
		if err := y.BackwardWith(torch.BackwardOptions{Grad: in[3]}); err != nil {
			t.Fatal(err)
		}
		tw := torch.ConvTranspose2d(in[3], in[1], nil, torch.ConvTransposeOptions{Stride: []int{2, 1}, Padding: []int{1, 1},
			Dilation: []int{1, 2}, Groups: 2})
		return []*torch.Tensor{y, xs.Grad(), ws.Grad(), tw}
	}
	want := run([]*torch.Tensor{x, w, b, g})
	ops := []kernel.OpID{kernel.OpConv2d, kernel.OpConv2dBackwardInput, kernel.OpConv2dBackwardWeight}
	counts := func() (c [3]dispatch.Counts) {
		for i, op := range ops {
			c[i] = dispatch.CountsOf(op, device.NPU)
		}
		return c
	}
	before := counts()
	got := run(onNPU(t, x, w, b, g))
	names := []string{"output", "input's gradient", "weight's gradient", "transposed"}
	for i := range want {
		closeTo(t, "KEEP_DTYPE "+names[i], got[i], want[i], 1e-6, 1e-6)
	}
	for i, c := range counts() {
		if c.HostFallback == before[i].HostFallback || c.Native != before[i].Native {
			t.Errorf("float32 %s with cubeMathType 0 should run on the host: %v, before %v", ops[i], c, before[i])
		}
	}
	t.Setenv("MINDTORCH_NPU_CUBE_MATH_TYPE", "1")
	before = counts()
	got = run(onNPU(t, x, w, b, g))
	for i := range want {
		closeTo(t, "HF32 "+names[i], got[i], want[i], 4e-3, 0)
	}
	for i, c := range counts() {
		if c.Native == before[i].Native || c.HostFallback != before[i].HostFallback {
			t.Errorf("float32 %s in HF32 should run natively: %v, before %v", ops[i], c, before[i])
		}
	}
	settle(t)
}
