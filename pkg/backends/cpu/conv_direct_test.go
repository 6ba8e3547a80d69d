package cpu

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/backends/meta"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// convCase is a convolution of n images c x h x w by oc kernels kh x kw,
// padded top, left, bottom, right, in groups, at stride (0 for 1).
type convCase struct {
	n, c, h, w, oc, kh, kw, groups, stride int
	pad                                    [4]int
	bias                                   bool
	special                                bool // NaN and ±Inf among the inputs
	finiteW                                bool // but not among the weights
	layout                                 int  // of the input: see ixTensor
}

func (k convCase) String() string {
	return fmt.Sprintf("x[%d %d %d %d] w[%d %d %d %d] groups=%d stride=%d pad=%v bias=%v special=%v finiteW=%v layout=%d",
		k.n, k.c, k.h, k.w, k.oc, k.c/k.groups, k.kh, k.kw, k.groups, k.strides(), k.pad, k.bias, k.special, k.finiteW, k.layout)
}

func (k convCase) strides() int { return max(k.stride, 1) }

func (k convCase) ints(extra ...int) []int {
	s := k.strides()
	return append([]int{s, s, k.pad[0], k.pad[1], k.pad[2], k.pad[3], 1, 1, k.groups}, extra...)
}

// runConv runs op's CPU kernel on ins with attributes ints and returns the
// output's elements as float64.
func runConv(t *testing.T, op kernel.OpID, ints []int, ins ...kernel.Operand) []float64 {
	t.Helper()
	c := new(kernel.Call)
	c.Init(op, device.CPUDevice, len(ins), 1)
	copy(c.In, ins)
	c.Ints = ints
	if err := kernel.Meta(op)(c); err != nil {
		t.Fatalf("%s: meta: %v", op, err)
	}
	o := &c.Out[0]
	if err := bindNew(o, kernel.Numel(o.Shape)*o.DType.ItemSize()); err != nil {
		t.Fatal(err)
	}
	defer o.Mem.Release()
	if err := kernel.Lookup(op, device.CPU)(c); err != nil {
		t.Fatalf("%s: %v", op, err)
	}
	out := make([]float64, kernel.Numel(o.Shape))
	for i := range out {
		out[i] = loadFloat(unsafe.Add(o.Data(), i*o.DType.ItemSize()), o.DType)
	}
	return out
}

// closeTo compares a float32 result with its float64 reference: NaN and
// infinities where the reference has them, else within tol.
func closeTo(got, want, tol float64) bool {
	switch {
	case math.IsNaN(want):
		return math.IsNaN(got)
	case math.IsInf(want, 0):
		return got == want
	}
	return math.Abs(got-want) <= tol*(1+math.Abs(want))
}

// check runs the case's forward convolution and input gradient in float32
// (the direct kernel where it applies) and in float64 (im2col and GEMM),
// and compares them.
func (k convCase) check(t *testing.T, r *rand.Rand) {
	t.Helper()
	og, cg := k.oc/k.groups, k.c/k.groups
	fill := func(n int, special bool) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = math.Round(r.Float64()*64-32) / 32
		}
		if special && n > 0 {
			for _, s := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				v[r.Intn(n)] = s
			}
		}
		return v
	}
	oh := meta.ConvOutSize(k.h, k.pad[0], k.pad[2], k.kh, 1, k.strides())
	ow := meta.ConvOutSize(k.w, k.pad[1], k.pad[3], k.kw, 1, k.strides())
	xs, ws, gs := []int{k.n, k.c, k.h, k.w}, []int{k.oc, cg, k.kh, k.kw}, []int{k.n, k.oc, oh, ow}
	xv, gv := fill(kernel.Numel(xs), k.special), fill(kernel.Numel(gs), k.special)
	wv, bv := fill(kernel.Numel(ws), k.special && !k.finiteW), fill(k.oc, k.special && !k.finiteW)
	tensor := func(d dtype.DType, shape []int, v []float64, layout int) kernel.Operand {
		return ixTensor(t, d, shape, layout, func(i int) float64 { return v[i] })
	}
	run := func(d dtype.DType) [3][]float64 {
		x, g := tensor(d, xs, xv, k.layout), tensor(d, gs, gv, k.layout)
		ins := []kernel.Operand{x, tensor(d, ws, wv, 0)}
		if k.bias {
			ins = append(ins, tensor(d, []int{k.oc}, bv, 0))
		}
		return [3][]float64{
			runConv(t, kernel.OpConv2d, k.ints(), ins...),
			runConv(t, kernel.OpConv2dBackwardInput, k.ints(k.h, k.w), g, ins[1]),
			runConv(t, kernel.OpConv2dBackwardWeight, k.ints(k.kh, k.kw), g, x),
		}
	}
	got, want := run(dtype.Float32), run(dtype.Float64)
	terms := [3]int{cg * k.kh * k.kw, og * k.kh * k.kw, k.n * oh * ow}
	for r, what := range []string{"forward", "input gradient", "weight gradient"} {
		for i := range want[r] {
			if !closeTo(got[r][i], want[r][i], 1e-5*float64(terms[r])) {
				t.Fatalf("%s: %s element %d is %v, want %v", k, what, i, got[r][i], want[r][i])
			}
		}
	}
}

// TestConvDirectMatchesIm2col checks the direct float32 convolution, its
// input gradient and its weight gradient, with each instruction set this
// CPU has (0: none, im2col in float32), against float64's im2col and GEMM
// (PyTorch's slow_conv2d, whose NaN and infinities it must reproduce) on
// shapes that exercise its edges: widths below and around a vector and
// odd, a chunk of positions cut by the end of the image, blocks of 16, 32,
// 48 and 64 channels and more than one, padded channels, groups, padding
// of every side (more than the kernel, which crops the gradient), strides
// (which may leave input rows and columns unread), batches of 0 and 1,
// non-contiguous inputs, NaN and infinities (in the weights too, which
// sends the input gradient to col2im).
func TestConvDirectMatchesIm2col(t *testing.T) {
	if !cpukernels.ConvDirectAvailable() {
		t.Skip("the CPU has no AVX2 and FMA: the direct convolution does not run")
	}
	cases := []convCase{
		{n: 1, c: 3, h: 5, w: 7, oc: 8, kh: 3, kw: 3, groups: 1},
		{n: 3, c: 5, h: 9, w: 13, oc: 20, kh: 3, kw: 3, groups: 1, pad: [4]int{1, 1, 1, 1}, bias: true},
		{n: 2, c: 16, h: 17, w: 15, oc: 64, kh: 3, kw: 3, groups: 1, pad: [4]int{1, 1, 1, 1}, bias: true},
		{n: 1, c: 7, h: 11, w: 31, oc: 72, kh: 1, kw: 1, groups: 1, bias: true},
		{n: 2, c: 9, h: 6, w: 21, oc: 40, kh: 1, kw: 3, groups: 1, pad: [4]int{0, 1, 0, 1}, bias: true},
		{n: 3, c: 6, h: 12, w: 10, oc: 40, kh: 5, kw: 5, groups: 1, pad: [4]int{2, 2, 2, 2}, bias: true},
		{n: 1, c: 4, h: 8, w: 8, oc: 130, kh: 3, kw: 3, groups: 1, pad: [4]int{2, 2, 2, 2}},
		{n: 2, c: 8, h: 6, w: 19, oc: 24, kh: 3, kw: 2, groups: 2, pad: [4]int{0, 1, 2, 0}, bias: true},
		{n: 3, c: 12, h: 7, w: 9, oc: 96, kh: 3, kw: 3, groups: 12, pad: [4]int{1, 1, 1, 1}, bias: true},
		{n: 1, c: 12, h: 7, w: 9, oc: 12, kh: 3, kw: 3, groups: 12, pad: [4]int{1, 1, 1, 1}, bias: true},
		{n: 2, c: 9, h: 4, w: 4, oc: 33, kh: 3, kw: 3, groups: 1, pad: [4]int{0, 0, 0, 0}},
		{n: 2, c: 16, h: 13, w: 5, oc: 32, kh: 3, kw: 3, groups: 2, pad: [4]int{1, 2, 1, 0}, bias: true},
		{n: 1, c: 2, h: 3, w: 3, oc: 16, kh: 3, kw: 3, groups: 1, pad: [4]int{3, 3, 3, 3}, bias: true},
		{n: 3, c: 5, h: 15, w: 14, oc: 48, kh: 3, kw: 3, groups: 1, pad: [4]int{1, 1, 1, 1}, special: true},
		{n: 2, c: 16, h: 10, w: 10, oc: 32, kh: 3, kw: 3, groups: 1, bias: true, special: true},
		{n: 2, c: 6, h: 9, w: 11, oc: 16, kh: 3, kw: 3, groups: 1, pad: [4]int{1, 1, 1, 1}, layout: 1},
		{n: 2, c: 6, h: 9, w: 11, oc: 17, kh: 2, kw: 3, groups: 1, pad: [4]int{1, 0, 0, 1}, layout: 2},
		{n: 64, c: 1, h: 28, w: 28, oc: 32, kh: 3, kw: 3, groups: 1, bias: true},
		{n: 8, c: 32, h: 20, w: 20, oc: 64, kh: 3, kw: 3, groups: 1, pad: [4]int{1, 1, 1, 1}, bias: true},
		{n: 0, c: 16, h: 6, w: 6, oc: 16, kh: 3, kw: 3, groups: 1, pad: [4]int{1, 1, 1, 1}, bias: true},
		{n: 2, c: 16, h: 8, w: 9, oc: 24, kh: 3, kw: 3, groups: 1, pad: [4]int{1, 1, 1, 1}, special: true, finiteW: true},
		{n: 2, c: 16, h: 15, w: 17, oc: 32, kh: 3, kw: 3, groups: 1, stride: 2, pad: [4]int{1, 1, 1, 1}, bias: true},
		{n: 3, c: 8, h: 9, w: 8, oc: 24, kh: 1, kw: 1, groups: 1, stride: 2},
		{n: 1, c: 5, h: 12, w: 13, oc: 16, kh: 3, kw: 2, groups: 1, stride: 3, pad: [4]int{0, 1, 2, 1}, bias: true},
		{n: 2, c: 12, h: 11, w: 10, oc: 48, kh: 3, kw: 3, groups: 3, stride: 2, pad: [4]int{1, 1, 1, 1}, special: true},
		{n: 2, c: 3, h: 32, w: 32, oc: 64, kh: 7, kw: 7, groups: 1, stride: 2, pad: [4]int{3, 3, 3, 3}, bias: true},
	}
	isas := []int{0, 2}
	if cpukernels.ConvWeightGradAvailable() {
		isas = append(isas, 3)
	}
	prev := cpukernels.SetConvDirectISA(0)
	defer cpukernels.SetConvDirectISA(prev)
	r := rand.New(rand.NewSource(1))
	for _, isa := range isas {
		cpukernels.SetConvDirectISA(isa)
		if got := cpukernels.SetConvDirectISA(isa); got != isa {
			t.Fatalf("asked for instruction set %d, the direct kernels use %d", isa, got)
		}
		if directConv(dtype.Float32, meta.ConvParams{SH: 1, SW: 1, DH: 1, DW: 1}, 3, 3, 2, directMinChannels) != (isa != 0) {
			t.Fatalf("isa %d: the direct kernel runs: %v", isa, isa != 0)
		}
		for _, k := range cases {
			t.Run(fmt.Sprintf("isa%d/%s", isa, k), func(t *testing.T) { k.check(t, r) })
		}
	}
}
