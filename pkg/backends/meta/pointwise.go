package meta

import (
	"math"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// How a pointwise op chooses its dtypes.
type pwRule uint8

const (
	ruleSame      pwRule = iota // compute and output in the promoted dtype
	ruleToFloat                 // integers and bool compute in the default float dtype
	ruleFloatOnly               // floating inputs only
	ruleIntOnly                 // integers and bool only (bitwise ops)
	ruleToBool                  // compute in the promoted dtype, bool output
)

type pwInfo struct {
	rule   pwRule
	binary bool   // a second operand, which may be a Go scalar
	noBool bool   // bool inputs are refused
	boolAs string // the message for refused bool inputs, when PyTorch has a special one
}

// pointwiseInfo is the pointwise table indexed by op, for the hot path.
var pointwiseInfo [kernel.NumOps]pwInfo

func init() {
	for op, info := range pointwise {
		pointwiseInfo[op] = info
		kernel.RegisterMeta(op, Pointwise)
	}
}

// PointwiseOperands returns the inputs of a pointwise call that take part
// in type promotion and broadcasting (the condition of where and the mask
// of masked_fill are bool and only broadcast).
func PointwiseOperands(c *kernel.Call) (promoted []kernel.Operand, first int) {
	switch c.Op {
	case kernel.OpWhere:
		return c.In[1:], 1
	case kernel.OpMaskedFill:
		return c.In[:1], 0
	}
	return c.In, 0
}

// Pointwise is the meta function of every pointwise op: broadcast the
// inputs, promote their dtypes (Go scalars and 0-dim tensors count less, as
// in PyTorch), choose the compute and output dtypes by the op's rule, and
// lay the output out as TensorIterator does.
func Pointwise(c *kernel.Call) error {
	info := pointwiseInfo[c.Op]
	promoted, _ := PointwiseOperands(c)
	if err := checkInputs(c); err != nil {
		return err
	}

	var rt dtype.ResultType
	for i := range promoted {
		p := dtype.Dimensioned
		if len(promoted[i].Shape) == 0 {
			p = dtype.ZeroDim
		}
		rt.Add(promoted[i].DType, p)
	}
	if ScalarOperand(c) {
		rt.Add(c.Scalars[0].DType(), dtype.Scalar)
	}
	if c.Op == kernel.OpClamp { // the bounds take part in type promotion
		for k, bit := range [2]int{kernel.ClampMin, kernel.ClampMax} {
			if c.Mode&bit != 0 {
				rt.Add(c.Scalars[k].DType(), dtype.Scalar)
			}
		}
	}
	if c.Op == kernel.OpMaskedFill && c.In[1].DType != dtype.Bool {
		return kernel.Errorf(kernel.ErrDType, "masked_fill_ only supports boolean masks, but got mask with dtype %s", c.In[1].DType.Name())
	}
	if c.Op == kernel.OpWhere && c.In[0].DType != dtype.Bool && c.In[0].DType != dtype.Uint8 {
		return kernel.Errorf(kernel.ErrDType, "where expected condition to be a boolean tensor, but got a tensor with dtype %s", c.In[0].DType.Name())
	}
	compute := rt.Result()
	out := compute
	rule := info.rule
	if c.Op == kernel.OpDiv && c.Mode != kernel.RoundNone {
		rule = ruleSame
	}
	switch rule {
	case ruleToFloat:
		if !compute.IsFloatingPoint() {
			compute = dtype.Default()
		}
		out = compute
	case ruleFloatOnly:
		if !compute.IsFloatingPoint() {
			return unsupported(c, compute)
		}
	case ruleIntOnly:
		if compute.IsFloatingPoint() {
			return unsupported(c, compute)
		}
	case ruleToBool:
		out = dtype.Bool
	}
	if info.noBool && compute == dtype.Bool {
		if c.Op == kernel.OpSquare {
			compute, out = dtype.Int64, dtype.Int64
		} else if info.boolAs != "" {
			return kernel.Errorf(kernel.ErrDType, "%s", info.boolAs)
		} else {
			return unsupported(c, compute)
		}
	}
	if c.Op == kernel.OpSquare && compute == dtype.Bool {
		compute, out = dtype.Int64, dtype.Int64
	}
	c.ComputeDType = compute

	// Broadcast every input, the condition and the mask included.
	var inline [4][]int
	shapes := inline[:0]
	for i := range c.In {
		shapes = append(shapes, c.In[i].Shape)
	}
	n := 0
	for _, s := range shapes {
		n = max(n, len(s))
	}
	shape := c.NewInts(n)
	if err := kernel.BroadcastInto(shape, shapes...); err != nil {
		return err
	}
	if err := setOutput(c, out, shape); err != nil {
		return err
	}
	return checkScalars(c, compute)
}

// checkInputs makes the checks PyTorch makes on the inputs of an op before
// it promotes them: bool operands of sub, integer powers of a negative
// integer scalar, lerp's operands of another dtype than start.
func checkInputs(c *kernel.Call) error {
	switch c.Op {
	case kernel.OpSub: // PyTorch's sub_check, also for a scalar operand
		bools := 0
		for i := range c.In {
			if c.In[i].DType == dtype.Bool {
				bools++
			}
		}
		if ScalarOperand(c) && c.Scalars[0].Kind() == dtype.KindBool {
			bools++
		}
		switch {
		case bools == 2:
			return kernel.Errorf(kernel.ErrDType, "Subtraction, the `-` operator, with two bool tensors is not supported. "+
				"Use the `^` or `logical_xor()` operator instead.")
		case bools == 1:
			return kernel.Errorf(kernel.ErrDType, "Subtraction, the `-` operator, with a bool tensor is not supported. "+
				"If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")
		}
	case kernel.OpPow: // only a scalar exponent: integer tensors to negative tensor powers compute (1, ±1 or 0)
		e := c.Scalars[0]
		if ScalarOperand(c) && c.In[0].DType.IsIntegral(true) && !e.IsFloat() && e.Int() < 0 {
			return kernel.Errorf(kernel.ErrArgument, "Integers to negative integer powers are not allowed.")
		}
	case kernel.OpHardtanh:
		if c.In[0].DType == dtype.Uint8 && (c.Scalars[0].Float() < 0 || c.Scalars[1].Float() < 0) {
			return kernel.Errorf(kernel.ErrArgument, "cannot do hardtanh on an unsigned type with negative limits")
		}
	case kernel.OpLerp: // no promotion: end and weight must have start's dtype
		for i, name := range [...]string{"", "end", "weight"} {
			if i > 0 && i < len(c.In) && c.In[i].DType != c.In[0].DType {
				return kernel.Errorf(kernel.ErrDType, "expected dtype %s for `%s` but got dtype %s",
					cppTypeName(c.In[0].DType), name, cppTypeName(c.In[i].DType))
			}
		}
	}
	return nil
}

// checkScalars makes the checks PyTorch makes on an op's scalar arguments
// once the dtype it computes in is known: add and sub's alpha (alpha_check),
// and clamp's bounds, which must fit that dtype (c10's checked_convert).
func checkScalars(c *kernel.Call, compute dtype.DType) error {
	switch c.Op {
	case kernel.OpAdd, kernel.OpSub:
		alpha := c.Scalars[1]
		if alpha.Kind() == dtype.KindBool && compute != dtype.Bool {
			return kernel.Errorf(kernel.ErrArgument, "Boolean alpha only supported for Boolean results.")
		}
		if alpha.IsFloat() && !compute.IsFloatingPoint() {
			return kernel.Errorf(kernel.ErrArgument, "For integral input tensors, argument alpha must not be a floating point number.")
		}
	case kernel.OpClamp:
		lo, hi := c.Scalars[0], c.Scalars[1]
		both := c.Mode&(kernel.ClampMin|kernel.ClampMax) == kernel.ClampMin|kernel.ClampMax
		if both && (math.IsNaN(lo.Float()) || math.IsNaN(hi.Float())) {
			return nil // PyTorch fills NaN without converting the bounds
		}
		// PyTorch 1.13 and 2.x refuse a bound outside an integer dtype
		// (int8's clamp(-1000, 1000) fails); their nightly builds saturate it.
		for k, bit := range [2]int{kernel.ClampMin, kernel.ClampMax} {
			if c.Mode&bit != 0 {
				if err := c.Scalars[k].CheckFits(compute); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// cppTypeName is the dtype as PyTorch's messages that print a caffe2
// TypeMeta name it ("float", "long int", "c10::Half").
func cppTypeName(d dtype.DType) string {
	if !d.Valid() {
		return d.String()
	}
	return [...]string{"bool", "unsigned char", "signed char", "short int", "int", "long int", "c10::Half",
		"c10::BFloat16", "float", "double"}[d]
}

// setOutput lays out output 0 for a broadcast shape, or checks the one the
// caller gave (in-place and out= calls) against it.
func setOutput(c *kernel.Call, out dtype.DType, shape []int) error {
	o := &c.Out[0]
	if c.OutGiven {
		if !slices.Equal(o.Shape, shape) {
			return kernel.Errorf(kernel.ErrShape, "output with shape %s doesn't match the broadcast shape %s",
				kernel.ShapeString(o.Shape), kernel.ShapeString(shape))
		}
		if !dtype.CanCast(out, o.DType) {
			return kernel.Errorf(kernel.ErrDType, "result type %s can't be cast to the desired output type %s",
				kernel.PyName(out), kernel.PyName(o.DType))
		}
		return nil
	}
	if _, err := kernel.CheckedNumel(shape, out.ItemSize()); err != nil { // broadcasting can grow it
		return err
	}
	o.DType = out
	o.Shape = shape
	o.Strides = kernel.ElementwiseStrides(shape, c.In, c.NewInts(len(shape)))
	return nil
}

// ScalarOperand reports whether a binary op's second operand is the Go
// scalar in Scalars[0] (the call has one input).
func ScalarOperand(c *kernel.Call) bool {
	return pointwiseInfo[c.Op].binary && len(c.In) == 1
}

// unsupported is PyTorch's error for a dtype an op's kernel lacks, named
// as PyTorch's dispatch macro names the kernel where it differs from the op.
func unsupported(c *kernel.Call, d dtype.DType) error {
	name := c.Op.String()
	switch {
	case c.Op == kernel.OpClamp:
		name = "clamp_scalar_cpu"
	case c.Op == kernel.OpClampTensor:
		name = "clamp_cpu"
	case c.Op == kernel.OpRound, c.Op == kernel.OpRoundDecimals && c.Scalars[0].Float() == 1:
		name = "round_vml_cpu" // round, and round with decimals=0, which PyTorch runs as round
	case c.Op == kernel.OpRoundDecimals:
		name = "round_cpu"
	case c.Op == kernel.OpLerp && len(c.In) == 2:
		name = "lerp_kernel_scalar"
	case c.Op == kernel.OpLerp:
		name = "lerp_kernel_tensor"
	}
	return kernel.Errorf(kernel.ErrDType, "\"%s\" not implemented for '%s'", name, kernel.PyName(d))
}
