package npu

import (
	"math"
	"math/big"
	"strings"

	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// The creation ops arange and linspace by aclnnArange and aclnnLinspace
// (prototypes, dtypes and sources in docs/npu-ops.md, "Creation ops"). CANN
// computes them otherwise than PyTorch for most dtypes and sizes, so the
// native route takes only the forms whose values are PyTorch's bit for bit
// (creationExact and the checks below); every other form declines
// (ErrNotImplemented) and the dispatcher runs it on the host, as before.

// Dtype sets of the creation ops' rows in opRules (dtypes.go): what CANN takes.
const (
	// M: math/range/op_host/op_api/aclnn_arange.cpp ASCEND910B_OUTPUT_DTYPE_SUPPORT_LIST
	arangeOut = f16 | f32 | f64 | i64 | i32 | bf16
	// M: math/lin_space/op_host/op_api/aclnn_linspace.cpp ASCEND910B_DTYPE_SUPPORT_LIST (older chips: no INT16)
	linspaceOut = f32 | f16 | bf16 | i32 | i16 | i8 | u8 | f64
)

// creationExact is the per-op table of the dtypes the native route takes:
// those whose kernels compute PyTorch's values. arange: int32 and int64,
// whose kernels (the TIK Range of Atlas A2/A3 and older chips, which adds a
// multiple of the step per 64-element unit, and M: math/range/op_kernel/
// arch35/range_int.h) are exact integer arithmetic, as PyTorch's int64 one;
// the floating kernels compute in float32 (PyTorch: double for float32), by
// accumulation, and DOUBLE goes to an AICPU kernel that is not open.
// linspace: float32 alone, where its one-core kernel is PyTorch's formula
// (linspaceExact); the 16-bit floats and the integers are computed in float
// or half (PyTorch: in the dtype, and double for integers), DOUBLE by an
// AICPU kernel counting from start only (M: math/lin_space/op_kernel_aicpu/
// lin_space_aicpu.cpp).
var creationExact = map[kernel.OpID]dset{kernel.OpArange: i32 | i64, kernel.OpLinspace: f32}

// linspaceOneCore is the most float32 steps aclnnLinspace computes on one
// core: its tiling gives a core a multiple of 32 bytes, so up to 8 floats
// take one core and LinSpaceSmallShape, PyTorch's two-sided formula in
// float (M: math/lin_space/op_host/lin_space_tiling.cpp, op_kernel/
// lin_space_small_shape.h). More steps run on several cores, which add
// multiples of the step to a per-core offset: other roundings.
const linspaceOneCore = 8

func init() {
	kernel.Register(kernel.OpArange, device.NPU, arangeKernel)
	kernel.Register(kernel.OpLinspace, device.NPU, linspaceKernel)
}

// creationOptional reports whether name is one of this file's ACLNN ops:
// each is optional (a CANN without it runs the op on the host, ENOSYM
// declining the call), so SymbolsOK does not require it.
func creationOptional(name string) bool {
	return name == opRules[npushim.Arange].name || name == opRules[npushim.Linspace].name
}

// creationDeclines declines a dtype outside creationExact for c's op.
func creationDeclines(c *kernel.Call) error {
	dt := aclDType[c.Out[0].DType]
	if creationExact[c.Op].has(dt) {
		return nil
	}
	return kernel.Errorf(kernel.ErrNotImplemented, "%s of %s is not on the NPU: CANN's kernel computes other values than PyTorch's",
		c.Op, c.Out[0].DType.Name())
}

// arangeKernel is arange by aclnnArange(start, end, step, out) for int32
// and int64 outputs of integer scalars. The call holds start, step and the
// count n: the end passed is the last value plus the step's sign, from
// which aclnnArange counts the same n and which, unlike start + n*step,
// never overflows. An empty output needs no launch.
func arangeKernel(c *kernel.Call) error {
	if err := creationDeclines(c); err != nil {
		return err
	}
	start, step, n := c.Scalars[0], c.Scalars[1], c.Ints[0]
	if start.Kind() != dtype.KindInt || step.Kind() != dtype.KindInt {
		return kernel.Errorf(kernel.ErrNotImplemented, "arange of %s from non-integer scalars is not on the NPU",
			c.Out[0].DType.Name())
	}
	if n == 0 {
		return nil
	}
	end, ok := arangeEnd(start.Int(), step.Int(), n, c.Out[0].DType)
	if !ok {
		return kernel.Errorf(kernel.ErrNotImplemented, "arange from %d by %d (%d values) leaves %s's range in CANN's arithmetic",
			start.Int(), step.Int(), n, c.Out[0].DType.Name())
	}
	a := scalars(start, step)
	a.Ext[0] = end
	return launch(c, npushim.Arange, a, &c.Out[0])
}

// arangeEnd is the end passed to aclnnArange for n values from start by
// step into dtype d (int32 or int64). ok is false when a number the
// kernels or their tiling compute would leave its type: start, step, the
// end and end - start for d (the kernels add i*step in d, which wraps or
// saturates, undocumented), and |end - start| + |step| for int64 (the
// tiling counts ceil((end - start) / step) in int64, M: math/range/op_host/
// arch35/range_tiling.cpp CalculateOutputSize).
func arangeEnd(start, step int64, n int, d dtype.DType) (int64, bool) {
	lo, hi := big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)
	if d == dtype.Int32 {
		lo, hi = big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)
	}
	in := func(v *big.Int) bool { return v.Cmp(lo) >= 0 && v.Cmp(hi) <= 0 }
	sign := int64(1)
	if step < 0 {
		sign = -1
	}
	bs := big.NewInt(step)
	span := new(big.Int).Mul(big.NewInt(int64(n-1)), bs)
	span.Add(span, big.NewInt(sign))
	end := new(big.Int).Add(big.NewInt(start), span)
	count := new(big.Int).Add(new(big.Int).Abs(span), new(big.Int).Abs(bs))
	if !in(big.NewInt(start)) || !in(bs) || !in(span) || !in(end) || !count.IsInt64() {
		return 0, false
	}
	return end.Int64(), true
}

// linspaceKernel is linspace by aclnnLinspace(start, end, steps, out) for
// float32, where linspaceExact finds its values to be PyTorch's. An empty
// output needs no launch.
func linspaceKernel(c *kernel.Call) error {
	if err := creationDeclines(c); err != nil {
		return err
	}
	n := c.Ints[0]
	if n == 0 {
		return nil
	}
	if err := linspaceExact(c.Scalars[0].Float(), c.Scalars[1].Float(), n); err != nil {
		return err
	}
	a := scalars(c.Scalars[0], c.Scalars[1])
	a.I[0] = int64(n)
	return launch(c, npushim.Linspace, a, &c.Out[0])
}

// linspaceExact declines the float32 linspaces whose values on the NPU
// could differ from PyTorch's. One step is a fill with start (aclnn_linspace.cpp
// FillScalar). Up to linspaceOneCore steps, on a SoC with the kernels of
// op_kernel/lin_space.cpp, the kernel computes step = (end - start) /
// (steps - 1) and start + step*i (end - step*(steps-1-i) from the middle on)
// in float, as PyTorch; whether a multiply and an add are fused is not
// documented on either side (PyTorch's AVX2 build fuses them), so the
// call is taken only where fusing changes no value. It is declined, too,
// when end - start is not a float32 (PyTorch and the kernel round it before
// dividing, MindTorch's CPU kernel divides it unrounded: the steps could
// differ) or a value is not finite.
func linspaceExact(start, end float64, n int) error {
	if n == 1 {
		return nil
	}
	decline := func(why string) error {
		return kernel.Errorf(kernel.ErrNotImplemented, "linspace of %d float32 steps is not on the NPU: %s", n, why)
	}
	if n > linspaceOneCore {
		return decline("more than 8 run on several cores, whose values differ from PyTorch's")
	}
	if !linspaceMembase(state.soc) {
		return decline("the kernel of " + socName() + " (op_kernel/arch35) is not verified")
	}
	s, e := float32(start), float32(end)
	d := float64(e) - float64(s)
	st := float32(float32(d) / float32(n-1))
	if float64(float32(d)) != d {
		return decline("end - start is not a float32")
	}
	for _, v := range []float32{s, e, st} {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return decline("a value is not finite")
		}
	}
	for i := range n {
		a, b, k := s, st, float32(i)
		if i >= n/2 {
			a, b, k = e, -st, float32(n-1-i)
		}
		if a+float32(b*k) != fma32(b, k, a) {
			return decline("a fused multiply-add would round otherwise")
		}
	}
	return nil
}

// linspaceMembase reports whether soc runs aclnnLinspace's kernels of
// op_kernel/lin_space.cpp: Atlas A2/A3 (Ascend910B*, Ascend910_93*) and the
// training and inference chips. Later SoCs (Ascend910_95, Ascend950) run
// op_kernel/arch35's vector Axpy, and an unknown name may.
func linspaceMembase(soc string) bool {
	return strings.HasPrefix(soc, "Ascend910B") || strings.HasPrefix(soc, "Ascend910_93") || chipOf(soc) == chipA1
}

// fma32 is a*b + c rounded once to float32, as a fused multiply-add gives
// it (a, b, c finite): the product and the sum are exact in 512 bits.
func fma32(a, b, c float32) float32 {
	var x, y big.Float
	x.SetPrec(512).SetFloat64(float64(a))
	x.Mul(&x, y.SetFloat64(float64(b)))
	x.Add(&x, y.SetFloat64(float64(c)))
	f, _ := x.Float32()
	return f
}
