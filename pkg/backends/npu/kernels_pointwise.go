package npu

import (
	"math"

	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

// The pointwise math ops, their reductions (all, any, logsumexp, var, std)
// and clamp with tensor bounds and lerp: one table row per op, each the
// ACLNN op that computes it (prototypes, dtypes and sources in
// docs/npu-ops.md, the dtype rows in dtypes.go). What ACLNN lacks, or
// computes otherwise than PyTorch, runs on the host (or by decomposition);
// docs/npu-ops.md lists those ops and why.

// Dtype sets of the pointwise ops' rows in opRules (dtypes.go).
const (
	actDTypes       = f32 | f16 | bf16                        // most activations, trunc, lerp, var, std
	expm1In         = f32 | f16 | i64 | bl | bf16             // aclnn_expm1.cpp: no DOUBLE
	signDTypes      = f64 | f32 | f16 | i32 | i64 | bl | bf16 // aclnn_sign.cpp
	floorDTypes     = i64 | i32 | i16 | i8 | u8 | floating    // aclnn_floor.cpp
	roundDTypes     = f32 | f16 | bf16 | f64 | i32 | i64      // aclnn_round.cpp
	fracDTypes      = f32 | f16 | i8 | i16 | i32 | i64 | u8 | bf16
	intOrBool       = i8 | i16 | i32 | i64 | u8 | bl
	remainderDTypes = i32 | i64 | f16 | f32 | f64 | bf16 // the promoted dtype (aclnn_remainder.cpp)
	fmodDTypes      = f32 | i32 | i8 | f16 | u8 | f64 | i64 | bf16
)

// pwOptional reports whether name is one of this file's ACLNN ops: each is
// optional (a CANN without it runs the op on the host, ENOSYM declining the
// call), so SymbolsOK does not require it.
func pwOptional(name string) bool {
	for op := npushim.Sin; op <= npushim.Std; op++ {
		if opRules[op].name == name {
			return true
		}
	}
	return false
}

// a2Only are the ops whose op_api refuses every SoC but Atlas A2/A3
// (aclnn_nan_to_num.cpp; aclnnLogit.md lists only A2/A3; aclnn_isposinf.cpp
// and aclnn_isneginf.cpp take DAV_2201 and Ascend310P, not the first
// Ascend910s, which share chipA1 with 310P here: declined on all of chipA1).
var a2Only = map[int]bool{npushim.NanToNum: true, npushim.Logit: true, npushim.IsPosInf: true, npushim.IsNegInf: true}

// pwLaunch is launch for the ops of this file: it declines an op the SoC
// lacks first.
func pwLaunch(c *kernel.Call, op int, a *npushim.Attrs, ops ...*kernel.Operand) error {
	if a2Only[op] && chipOf(state.soc) == chipA1 {
		return kernel.Errorf(kernel.ErrNotImplemented, "%s is only on Atlas A2/A3, not on %s", opRules[op].name, socName())
	}
	return launch(c, op, a, ops...)
}

// pwUnary is a unary op run by one ACLNN op over (out, in).
type pwUnary struct {
	op   kernel.OpID
	shim int
	// copyInts: an integer is its own result (ceil, round, trunc), so an
	// integer input the ACLNN op refuses is copied (aclnnInplaceCopy).
	copyInts bool
	// zeroInts: the result of an integer or bool input is false everywhere
	// (isinf), written by aclnnInplaceZero when the ACLNN op refuses it.
	zeroInts bool
	// floats, when set, is why floating inputs decline.
	floats string
}

var pwUnaries = []pwUnary{
	{op: kernel.OpSin, shim: npushim.Sin}, {op: kernel.OpCos, shim: npushim.Cos}, {op: kernel.OpTan, shim: npushim.Tan},
	{op: kernel.OpAsin, shim: npushim.Asin}, {op: kernel.OpAcos, shim: npushim.Acos}, {op: kernel.OpAtan, shim: npushim.Atan},
	{op: kernel.OpAsinh, shim: npushim.Asinh}, {op: kernel.OpAcosh, shim: npushim.Acosh},
	{op: kernel.OpAtanh, shim: npushim.Atanh}, {op: kernel.OpSinh, shim: npushim.Sinh}, {op: kernel.OpCosh, shim: npushim.Cosh},
	{op: kernel.OpErf, shim: npushim.Erf}, {op: kernel.OpErfc, shim: npushim.Erfc}, {op: kernel.OpErfinv, shim: npushim.Erfinv},
	{op: kernel.OpExp2, shim: npushim.Exp2}, {op: kernel.OpExpm1, shim: npushim.Expm1}, {op: kernel.OpLog2, shim: npushim.Log2},
	{op: kernel.OpLog10, shim: npushim.Log10}, {op: kernel.OpLog1p, shim: npushim.Log1p},
	{op: kernel.OpRsqrt, shim: npushim.Rsqrt}, {op: kernel.OpReciprocal, shim: npushim.Reciprocal},
	{op: kernel.OpSinc, shim: npushim.Sinc}, {op: kernel.OpSign, shim: npushim.Sign},
	{op: kernel.OpFloor, shim: npushim.Floor, copyInts: true}, {op: kernel.OpCeil, shim: npushim.Ceil, copyInts: true},
	{op: kernel.OpRound, shim: npushim.Round, copyInts: true}, {op: kernel.OpTrunc, shim: npushim.Trunc, copyInts: true},
	{op: kernel.OpFrac, shim: npushim.Frac},
	{op: kernel.OpIsInf, shim: npushim.IsInf, zeroInts: true}, {op: kernel.OpIsFinite, shim: npushim.IsFinite},
	{op: kernel.OpIsPosInf, shim: npushim.IsPosInf}, {op: kernel.OpIsNegInf, shim: npushim.IsNegInf},
	// Atlas A2/A3 compute aclnnSignbit as self < 0 (aclnn_signbit.cpp: Less unless RegBase), false for -0.0
	// and a negative NaN, which PyTorch's signbit calls negative.
	{op: kernel.OpSignbit, shim: npushim.Signbit,
		floats: "aclnnSignbit computes self < 0 on Atlas A2/A3, false for -0.0 and negative NaNs (PyTorch: true)"},
	{op: kernel.OpBitwiseNot, shim: npushim.BitwiseNot}, {op: kernel.OpLogicalNot, shim: npushim.LogicalNot},
	{op: kernel.OpSilu, shim: npushim.Silu}, {op: kernel.OpLogSigmoid, shim: npushim.LogSigmoid},
	{op: kernel.OpHardswish, shim: npushim.Hardswish}, {op: kernel.OpHardsigmoid, shim: npushim.Hardsigmoid},
	{op: kernel.OpMish, shim: npushim.Mish}, {op: kernel.OpSelu, shim: npushim.Selu},
}

// pwBinary is a binary op run by one ACLNN op over (out, a, b); the forms
// with a Go scalar run on the host.
type pwBinary struct {
	op   kernel.OpID
	shim int
	// ints, when set, is why integer inputs decline.
	ints string
}

// PyTorch raises ZeroDivisionError for an integer remainder or fmod by 0;
// the NPU cannot report it without reading the divisor back.
const intDivision = "an integer division by zero must raise as PyTorch's, which the NPU cannot report"

var pwBinaries = []pwBinary{
	{op: kernel.OpRemainder, shim: npushim.Remainder, ints: intDivision},
	{op: kernel.OpFmod, shim: npushim.Fmod, ints: intDivision},
	{op: kernel.OpAtan2, shim: npushim.Atan2}, {op: kernel.OpLogaddexp, shim: npushim.LogAddExp},
	{op: kernel.OpBitwiseAnd, shim: npushim.BitwiseAnd}, {op: kernel.OpBitwiseOr, shim: npushim.BitwiseOr},
	{op: kernel.OpBitwiseXor, shim: npushim.BitwiseXor}, {op: kernel.OpLogicalAnd, shim: npushim.LogicalAnd},
	{op: kernel.OpLogicalOr, shim: npushim.LogicalOr}, {op: kernel.OpLogicalXor, shim: npushim.LogicalXor},
}

func init() {
	for _, u := range pwUnaries {
		kernel.Register(u.op, device.NPU, u.kernel)
	}
	for _, b := range pwBinaries {
		kernel.Register(b.op, device.NPU, b.kernel)
	}
	kernel.Register(kernel.OpLeakyRelu, device.NPU, func(c *kernel.Call) error {
		return pwLaunch(c, npushim.LeakyRelu, scalars(c.Scalars[0]), &c.Out[0], &c.In[0])
	})
	kernel.Register(kernel.OpElu, device.NPU, eluKernel)
	kernel.Register(kernel.OpCelu, device.NPU, celuKernel)
	kernel.Register(kernel.OpSoftplus, device.NPU, func(c *kernel.Call) error {
		return pwLaunch(c, npushim.Softplus, scalars(c.Scalars[0], c.Scalars[1]), &c.Out[0], &c.In[0])
	})
	kernel.Register(kernel.OpHardtanh, device.NPU, func(c *kernel.Call) error {
		return hardtanh(c, c.Scalars[0], c.Scalars[1])
	})
	kernel.Register(kernel.OpRelu6, device.NPU, func(c *kernel.Call) error {
		return hardtanh(c, kernel.IntScalar(0), kernel.IntScalar(6))
	})
	kernel.Register(kernel.OpLogit, device.NPU, logitKernel)
	kernel.Register(kernel.OpNanToNum, device.NPU, nanToNumKernel)
	kernel.Register(kernel.OpClampTensor, device.NPU, func(c *kernel.Call) error {
		if len(c.In) != 3 {
			return kernel.Errorf(kernel.ErrNotImplemented, "clamp with one tensor bound is not on the NPU")
		}
		return pwLaunch(c, npushim.ClampTensor, nil, &c.Out[0], &c.In[0], &c.In[1], &c.In[2])
	})
	kernel.Register(kernel.OpLerp, device.NPU, func(c *kernel.Call) error {
		if len(c.In) == 3 {
			return pwLaunch(c, npushim.Lerp, nil, &c.Out[0], &c.In[0], &c.In[1], &c.In[2])
		}
		return pwLaunch(c, npushim.Lerps, scalars(c.Scalars[0]), &c.Out[0], &c.In[0], &c.In[1])
	})
	kernel.Register(kernel.OpAll, device.NPU, pwReduce(npushim.All))
	kernel.Register(kernel.OpAny, device.NPU, pwReduce(npushim.Any))
	kernel.Register(kernel.OpLogSumExp, device.NPU, pwReduce(npushim.LogSumExp))
	kernel.Register(kernel.OpVar, device.NPU, pwReduce(npushim.Var))
	kernel.Register(kernel.OpStd, device.NPU, pwReduce(npushim.Std))
}

func (u pwUnary) kernel(c *kernel.Call) error {
	if c.Mode != 0 {
		return kernel.Errorf(kernel.ErrNotImplemented, "this form of %s is not on the NPU", c.Op)
	}
	in, out := &c.In[0], &c.Out[0]
	float := in.DType.IsFloatingPoint()
	if float && u.floats != "" {
		return kernel.Errorf(kernel.ErrNotImplemented, "%s of %s is not on the NPU: %s", c.Op, in.DType.Name(), u.floats)
	}
	if !float && (u.copyInts || u.zeroInts) {
		if err := checkDTypes(u.shim, []*kernel.Operand{out, in}); err != nil {
			if u.copyInts && in.DType == out.DType {
				return launch(c, npushim.Copy, nil, out, in)
			}
			if u.zeroInts {
				return launch(c, npushim.Zero, nil, out)
			}
			return err
		}
	}
	return pwLaunch(c, u.shim, nil, out, in)
}

func (b pwBinary) kernel(c *kernel.Call) error {
	if c.Mode != 0 || len(c.In) != 2 {
		return kernel.Errorf(kernel.ErrNotImplemented, "%s with a Go scalar is not on the NPU", c.Op)
	}
	if b.ints != "" && !c.ComputeDType.IsFloatingPoint() {
		return kernel.Errorf(kernel.ErrNotImplemented, "%s of %s is not on the NPU: %s", c.Op, c.ComputeDType.Name(), b.ints)
	}
	return pwLaunch(c, b.shim, nil, &c.Out[0], &c.In[0], &c.In[1])
}

// eluKernel runs elu as aclnnElu(self, alpha, scale 1, inputScale 1). A
// non-finite alpha takes another path in aclnn_elu.cpp (Threshold and
// Muls), whose values at 0 differ from PyTorch's: it runs on the host.
func eluKernel(c *kernel.Call) error {
	alpha := c.Scalars[0].Float()
	if math.IsInf(alpha, 0) || math.IsNaN(alpha) {
		return kernel.Errorf(kernel.ErrNotImplemented, "elu with alpha %v is not on the NPU", alpha)
	}
	return pwLaunch(c, npushim.Elu, scalars(c.Scalars[0], kernel.IntScalar(1)), &c.Out[0], &c.In[0])
}

// celuKernel runs celu by aclnnCelu, which refuses alpha 0 (aclnn_celu.cpp).
func celuKernel(c *kernel.Call) error {
	if c.Scalars[0].Float() == 0 {
		return kernel.Errorf(kernel.ErrNotImplemented, "celu with alpha 0 is not on the NPU (aclnnCelu refuses it)")
	}
	return pwLaunch(c, npushim.Celu, scalars(c.Scalars[0]), &c.Out[0], &c.In[0])
}

// hardtanh runs hardtanh (and relu6, as hardtanh(0, 6)) by aclnnHardtanh,
// which refuses min > max (aclnn_hardtanh.cpp CheckMinMaxValue): such a
// call, or one with a NaN bound, runs on the host.
func hardtanh(c *kernel.Call, lo, hi kernel.Scalar) error {
	if math.IsNaN(lo.Float()) || math.IsNaN(hi.Float()) || lo.Float() > hi.Float() {
		return kernel.Errorf(kernel.ErrNotImplemented, "hardtanh with bounds %v, %v is not on the NPU", lo, hi)
	}
	return pwLaunch(c, npushim.Hardtanh, scalars(lo, hi), &c.Out[0], &c.In[0])
}

// logitKernel runs logit by aclnnLogit(input, double eps, out): a negative
// eps (PyTorch's None) clamps nothing (aclnnLogit.md's recommended -1).
func logitKernel(c *kernel.Call) error {
	eps := c.Scalars[0].Float()
	if eps < 0 {
		eps = -1
	}
	return pwLaunch(c, npushim.Logit, &npushim.Attrs{F: [2]float64{eps}}, &c.Out[0], &c.In[0])
}

// nanToNumKernel runs nan_to_num by aclnnNanToNum(self, float nan, float
// posinf, float neginf, out). The replacements cross as float32 (its
// prototype's): exact for the dtypes it takes (no DOUBLE), whose values
// PyTorch converts to the tensor's dtype anyway.
func nanToNumKernel(c *kernel.Call) error {
	a := &npushim.Attrs{F: [2]float64{c.Scalars[0].Float(), c.Scalars[1].Float()}}
	a.I[0] = int64(math.Float64bits(c.Scalars[2].Float()))
	return pwLaunch(c, npushim.NanToNum, a, &c.Out[0], &c.In[0])
}

// pwReduce runs all, any and logsumexp (self, dims, keepdim, out), and var
// and std (self, dims, int64_t correction, keepdim, out) over the call's
// dims, named explicitly (none for a 0-dim input), as reduceKernel does.
// var and std take an integral correction below the number of elements
// reduced: aclnn_var.cpp and aclnn_std.cpp fill NaN or +inf otherwise,
// where PyTorch divides by max(n - correction, 0).
func pwReduce(n int) kernel.KernelFunc {
	return func(c *kernel.Call) error {
		in, out := &c.In[0], &c.Out[0]
		a := &npushim.Attrs{}
		if c.KeepDim {
			a.Flag = 1
		}
		dims := c.Dims
		if len(in.Shape) == 0 {
			dims = nil
		} else if len(dims) == 0 {
			for d := range in.Shape {
				dims = append(dims, d)
			}
		}
		count := 1
		for i, d := range dims {
			a.I[i] = int64(d)
			count *= in.Shape[d]
		}
		a.NI = int32(len(dims))
		if n == npushim.Var || n == npushim.Std {
			corr := c.Scalars[0].Float()
			if corr != math.Trunc(corr) || corr < 0 || corr >= float64(count) {
				return kernel.Errorf(kernel.ErrNotImplemented, "%s with correction %v over %d elements is not on the NPU",
					c.Op, corr, count)
			}
			a.SI[0] = int64(corr)
		}
		return pwLaunch(c, n, a, out, in)
	}
}
