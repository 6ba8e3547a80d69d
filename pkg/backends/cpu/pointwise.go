package cpu

import (
	"math"
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/backends/meta"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	for _, op := range cPointwise {
		kernel.Register(op, device.CPU, pointwiseKernel)
	}
}

// engineDType is the dtype the C engine computes a compute dtype in:
// float16 and bfloat16 in float32, as PyTorch's CPU kernels do.
func engineDType(d dtype.DType) dtype.DType {
	if d == dtype.Float16 || d == dtype.BFloat16 {
		return dtype.Float32
	}
	return d
}

// identityOnIntegers lists the rounding ops that return integers unchanged.
func identityOnIntegers(op kernel.OpID) bool {
	switch op {
	case kernel.OpFloor, kernel.OpCeil, kernel.OpRound, kernel.OpTrunc, kernel.OpNanToNum:
		return true
	}
	return false
}

// pointwiseKernel runs any pointwise op: inputs are brought to the engine's
// compute dtype (a copy only when they differ), Go scalars become
// one-element operands, and the result goes straight into the output when
// its dtype is the engine's, else through a temporary and a cast.
func pointwiseKernel(c *kernel.Call) error {
	o := &c.Out[0]
	compute := c.ComputeDType
	if !compute.IsFloatingPoint() && identityOnIntegers(c.Op) {
		return castInto(opnd(o), o.DType, opnd(&c.In[0]), c.In[0].DType, o.Shape)
	}
	eng := engineDType(compute)
	cop := cOp(c.Op, c.Mode)
	if smallBinary(c, cop, eng) {
		return nil
	}

	it := getIter()
	defer it.put()
	var ops [cpukernels.MaxOps]operand
	nops := 1
	_, first := meta.PointwiseOperands(c)
	for i := range c.In {
		in := &c.In[i]
		if i < first || (c.Op == kernel.OpMaskedFill && i == 1) {
			ops[nops] = opnd(in) // bool condition or mask, read as bytes
		} else if in.DType != eng {
			t, err := contiguousCopy(in, eng)
			if err != nil {
				return err
			}
			defer t.Mem.Release()
			ops[nops] = opnd(&t)
		} else {
			ops[nops] = opnd(in)
		}
		nops++
	}
	var attrs cpukernels.Attrs
	if bits, ok := loopAttrs(c, eng, &attrs); ok {
		it.scratch[0] = bits
		ops[nops] = operand{data: unsafe.Pointer(&it.scratch[0]), size: eng.ItemSize()}
		nops++
	}

	if nops-1 < int(cInputs[c.Op]) {
		// A call built wrong: the C loop would read a missing operand.
		return kernel.Errorf(kernel.ErrArgument, "%s takes %d operands, the call has %d", c.Op, cInputs[c.Op], nops-1)
	}

	// Comparisons and logical ops make bools, cast afterwards into an
	// output of another dtype (an out= or in-place form).
	outDT := eng
	if cBoolOut[c.Op] {
		outDT = dtype.Bool
	}
	direct := o.DType == outDT
	var tmp kernel.Operand
	if direct {
		ops[0] = opnd(o)
	} else {
		var err error
		if tmp, err = newContiguous(o.Shape, outDT); err != nil {
			return err
		}
		defer tmp.Mem.Release()
		ops[0] = opnd(&tmp)
	}
	it.build(o.Shape, ops[:nops])
	if err := it.pointwise(cop, eng, &attrs); err != nil {
		if err == cpukernels.ErrZeroDiv {
			return kernel.Errorf(kernel.ErrArgument, "ZeroDivisionError")
		}
		return kernel.Errorf(kernel.ErrNotImplemented, "\"%s\" not implemented for '%s'", c.Op, kernel.PyName(compute))
	}
	if !direct {
		return castInto(opnd(o), o.DType, opnd(&tmp), outDT, o.Shape)
	}
	return nil
}

// loopAttrs sets the attributes of c's C loop in engine dtype eng and
// returns the bits of the Go scalar the loop reads as its last operand,
// when it reads one.
func loopAttrs(c *kernel.Call, eng dtype.DType, attrs *cpukernels.Attrs) (scalar uint64, ok bool) {
	for k, s := range cAttrs[c.Op] {
		setAttr(attrs, k, c.Scalars[s])
	}
	if c.Op == kernel.OpClamp {
		clampAttrs(attrs, c, eng)
	}
	if meta.ScalarOperand(c) || (c.Op == kernel.OpLerp && len(c.In) == 2) {
		return c.Scalars[0].Bits(eng), true
	}
	return 0, false
}

func setAttr(a *cpukernels.Attrs, k int, s kernel.Scalar) {
	a.F[k] = s.Float()
	a.I[k] = s.Int()
}

// clampAttrs sets the bounds of clamp; a missing bound is the dtype's extreme.
func clampAttrs(a *cpukernels.Attrs, c *kernel.Call, d dtype.DType) {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch d {
	case dtype.Uint8:
		lo, hi = 0, math.MaxUint8
	case dtype.Int8:
		lo, hi = math.MinInt8, math.MaxInt8
	case dtype.Int16:
		lo, hi = math.MinInt16, math.MaxInt16
	case dtype.Int32:
		lo, hi = math.MinInt32, math.MaxInt32
	}
	a.F[0], a.I[0] = math.Inf(-1), lo
	a.F[1], a.I[1] = math.Inf(1), hi
	if c.Mode&kernel.ClampMin != 0 {
		a.F[0], a.I[0] = c.Scalars[0].Float(), int64(c.Scalars[0].Bits(d))
		if d.IsSigned() && !d.IsFloatingPoint() {
			a.I[0] = signExtend(a.I[0], d.ItemSize())
		}
	}
	if c.Mode&kernel.ClampMax != 0 {
		a.F[1], a.I[1] = c.Scalars[1].Float(), int64(c.Scalars[1].Bits(d))
		if d.IsSigned() && !d.IsFloatingPoint() {
			a.I[1] = signExtend(a.I[1], d.ItemSize())
		}
	}
}

func signExtend(v int64, size int) int64 {
	shift := 64 - 8*size
	return v << shift >> shift
}

// pointwise runs the plan through the engine, split across cores when large.
func (it *iter) pointwise(op int, d dtype.DType, a *cpukernels.Attrs) error {
	p := it.plan
	n := it.numel
	if n >= grain {
		beginLarge()
		return cpukernels.PointwiseParallel(op, int(d), p, &it.ptrs, n, a, grain/2)
	}
	if p.NDim <= 1 {
		var s [cpukernels.MaxOps]int64
		if p.NDim == 1 {
			for k := range int(p.NOps) {
				s[k] = p.Strides[k][0]
			}
		}
		return cpukernels.Pointwise1D(op, int(d), n, &it.ptrs, &s, a)
	}
	return cpukernels.Pointwise(op, int(d), p, &it.ptrs, 0, n, a)
}
