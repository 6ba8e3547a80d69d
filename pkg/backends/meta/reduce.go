package meta

import (
	"math"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	for _, op := range []kernel.OpID{kernel.OpSum, kernel.OpMean, kernel.OpProd, kernel.OpAmax, kernel.OpAmin,
		kernel.OpMaxDim, kernel.OpMinDim, kernel.OpArgmax, kernel.OpArgmin, kernel.OpVar, kernel.OpStd,
		kernel.OpNorm, kernel.OpLogSumExp, kernel.OpAll, kernel.OpAny, kernel.OpCountNonzero} {
		kernel.RegisterMeta(op, Reduction)
	}
	for _, op := range []kernel.OpID{kernel.OpCumsum, kernel.OpCumprod, kernel.OpSoftmax, kernel.OpLogSoftmax,
		kernel.OpSoftmaxBackward, kernel.OpLogSoftmaxBackward} {
		kernel.RegisterMeta(op, AlongDim)
	}
}

// ReducedMask returns which dims of an ndim-dimensional input a reduction
// call reduces: c.Dims (normalized, no repeats), or every dim when empty;
// argmax and argmin with Mode 1 reduce all, max and min with values and
// indices reduce c.Dim.
func ReducedMask(c *kernel.Call, ndim int) []bool {
	mask := make([]bool, ndim)
	switch {
	case c.Op == kernel.OpMaxDim || c.Op == kernel.OpMinDim || (c.Op == kernel.OpArgmax || c.Op == kernel.OpArgmin) && c.Mode == 0:
		if ndim > 0 {
			mask[c.Dim] = true
		}
	case len(c.Dims) == 0:
		for i := range mask {
			mask[i] = true
		}
	default:
		for _, d := range c.Dims {
			if d < ndim {
				mask[d] = true
			}
		}
	}
	return mask
}

// Reduction is the meta function of the reductions: the output keeps the
// unreduced dims (and the reduced ones as size 1 with KeepDim), with
// PyTorch's result dtypes.
func Reduction(c *kernel.Call) error {
	in := &c.In[0]
	mask := ReducedMask(c, len(in.Shape))
	out, compute, err := reductionDTypes(c, in.DType)
	if err != nil {
		return err
	}
	c.ComputeDType = compute
	// Reductions that pick an element need one to pick.
	switch c.Op {
	case kernel.OpAmax, kernel.OpAmin, kernel.OpMaxDim, kernel.OpMinDim, kernel.OpArgmax, kernel.OpArgmin:
		if in.Numel() == 0 {
			allDims := len(c.Dims) == 0 && c.Op != kernel.OpMaxDim && c.Op != kernel.OpMinDim &&
				!((c.Op == kernel.OpArgmax || c.Op == kernel.OpArgmin) && c.Mode == 0)
			if allDims && (c.Op == kernel.OpArgmax || c.Op == kernel.OpArgmin) {
				return kernel.Errorf(kernel.ErrIndex, "%s(): Expected reduction dim to be specified for input.numel() == 0.", c.Op)
			}
			if allDims { // amax() and amin() without dims, as max() and min()
				return kernel.Errorf(kernel.ErrArgument, "%s(): Expected reduction dim to be specified for input.numel() == 0. "+
					"Specify the reduction dim with the 'dim' argument.", c.Op)
			}
			for d, r := range mask {
				if r && in.Shape[d] == 0 {
					return kernel.Errorf(kernel.ErrIndex, "%s(): Expected reduction dim %d to have non-zero size.", c.Op, d)
				}
			}
			if allDims && len(in.Shape) == 0 {
				return kernel.Errorf(kernel.ErrIndex, "%s(): Expected reduction dim to be specified for input.numel() == 0.", c.Op)
			}
		}
	}
	if c.Op == kernel.OpNorm {
		if err := normIdentity(c.Scalars[0].Float(), in.Shape, mask, len(c.Dims) == 0); err != nil {
			return err
		}
	}
	if (c.Op == kernel.OpArgmax || c.Op == kernel.OpArgmin) && in.DType == dtype.Bool { // after the checks above, as PyTorch
		return kernel.Errorf(kernel.ErrDType, "\"%s_cpu\" not implemented for 'Bool'", c.Op)
	}
	shape := c.NewInts(len(in.Shape))[:0]
	for d, n := range in.Shape {
		switch {
		case !mask[d]:
			shape = append(shape, n)
		case c.KeepDim:
			shape = append(shape, 1)
		}
	}
	nOut := 1
	if c.Op == kernel.OpMaxDim || c.Op == kernel.OpMinDim {
		nOut = 2
	}
	if !c.OutGiven {
		c.SetOutputs(nOut)
	}
	if err := contiguousOut(c, 0, out, shape); err != nil || nOut == 1 {
		return err
	}
	return contiguousOut(c, 1, dtype.Int64, shape)
}

// normIdentity refuses a norm without an identity (p < 0 or p = inf: a
// minimum or maximum of magnitudes) over an empty slice. PyTorch 1.13's
// torch.norm returns 0 there, its linalg.vector_norm refuses it; 2.x's
// torch.norm is linalg.vector_norm, so both refuse, with vector_norm's
// messages (and their missing space).
func normIdentity(p float64, shape []int, mask []bool, allDims bool) error {
	if p >= 0 && !math.IsInf(p, 1) {
		return nil
	}
	ord := kernel.FloatScalar(p).String()
	switch {
	case math.IsInf(p, 1):
		ord = "inf"
	case math.IsInf(p, -1):
		ord = "-inf"
	}
	if allDims {
		if kernel.Numel(shape) == 0 {
			return kernel.Errorf(kernel.ErrIndex, "linalg.vector_norm cannot compute the %s norm on an empty tensor "+
				"because the operation does not have an identity", ord)
		}
		return nil
	}
	for d, r := range mask {
		if r && shape[d] == 0 {
			return kernel.Errorf(kernel.ErrIndex, "linalg.vector_norm cannot compute the %s norm on the dimension %d"+
				"because this dimension is empty and the operation does not have an identity", ord, d)
		}
	}
	return nil
}

// reductionDTypes returns the result dtype of a reduction and the dtype it
// computes in (before the CPU engine's own widening).
func reductionDTypes(c *kernel.Call, in dtype.DType) (out, compute dtype.DType, err error) {
	switch c.Op {
	case kernel.OpSum, kernel.OpProd:
		out = sumDType(c, in)
		return out, out, nil
	case kernel.OpMean:
		if c.HasDType {
			if !c.DType.IsFloatingPoint() {
				return 0, 0, kernel.Errorf(kernel.ErrDType, "mean(): could not infer output dtype. Optional dtype must be "+
					"either a floating point or complex dtype. Got: %s", dtypeTitle(c.DType))
			}
			return c.DType, c.DType, nil
		}
		if !in.IsFloatingPoint() {
			return 0, 0, kernel.Errorf(kernel.ErrDType, "mean(): could not infer output dtype. Input dtype must be "+
				"either a floating point or complex dtype. Got: %s", dtypeTitle(in))
		}
		return in, in, nil
	case kernel.OpAmax, kernel.OpAmin, kernel.OpMaxDim, kernel.OpMinDim:
		return in, in, nil
	case kernel.OpArgmax, kernel.OpArgmin:
		return dtype.Int64, in, nil
	case kernel.OpVar, kernel.OpStd:
		if !in.IsFloatingPoint() {
			return 0, 0, kernel.Errorf(kernel.ErrDType, "std and var only support floating point and complex dtypes")
		}
		return in, in, nil
	case kernel.OpNorm:
		if !in.IsFloatingPoint() {
			return 0, 0, kernel.Errorf(kernel.ErrDType, "norm(): input dtype should be either floating point or complex. "+
				"Got %s instead.", dtypeTitle(in))
		}
		if c.HasDType {
			return c.DType, c.DType, nil
		}
		return in, in, nil
	case kernel.OpLogSumExp:
		if !in.IsFloatingPoint() {
			return dtype.Default(), dtype.Default(), nil
		}
		return in, in, nil
	case kernel.OpAll, kernel.OpAny:
		if in == dtype.Uint8 {
			return dtype.Uint8, dtype.Bool, nil
		}
		return dtype.Bool, dtype.Bool, nil
	case kernel.OpCountNonzero:
		return dtype.Int64, dtype.Bool, nil
	}
	return 0, 0, kernel.Errorf(kernel.ErrNotImplemented, "%s is not a reduction", c.Op)
}

// sumDType is the result dtype of sum, prod, cumsum and cumprod: the
// requested dtype, else int64 for integer and bool inputs, else the input's.
func sumDType(c *kernel.Call, in dtype.DType) dtype.DType {
	switch {
	case c.HasDType:
		return c.DType
	case !in.IsFloatingPoint():
		return dtype.Int64
	}
	return in
}

// dtypeTitle is the dtype as PyTorch's C++ messages name it ("Long", "Float").
func dtypeTitle(d dtype.DType) string {
	return [...]string{"Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "BFloat16", "Float", "Double"}[d]
}

// AlongDim is the meta function of the ops that keep the shape and work
// along c.Dim: cumsum, cumprod, softmax, log_softmax and their gradients.
func AlongDim(c *kernel.Call) error {
	in := &c.In[0]
	var out dtype.DType
	switch c.Op {
	case kernel.OpCumsum, kernel.OpCumprod:
		out = sumDType(c, in.DType)
	case kernel.OpSoftmax, kernel.OpLogSoftmax:
		out = in.DType
		if c.HasDType {
			out = c.DType
		}
		if !out.IsFloatingPoint() {
			return kernel.Errorf(kernel.ErrDType, "\"%s\" not implemented for '%s'", c.Op, dtypeTitle(out))
		}
	default: // the gradients: In[0] the incoming gradient, In[1] the forward output
		g, y := &c.In[0], &c.In[1]
		if !slices.Equal(g.Shape, y.Shape) || g.DType != y.DType {
			return kernel.Errorf(kernel.ErrShape, "grad %s %s and output %s %s must have the same shape and dtype",
				kernel.PyName(g.DType), kernel.ShapeString(g.Shape), kernel.PyName(y.DType), kernel.ShapeString(y.Shape))
		}
		out = y.DType
	}
	c.ComputeDType = out
	return contiguousOut(c, 0, out, in.Shape)
}
