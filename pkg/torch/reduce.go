package torch

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// Reductions take the dims to reduce as trailing arguments (negative dims
// count from the end; none means every dim), and drop the reduced dims;
// the KeepDim forms keep them as size 1. Result dtypes are PyTorch's: the
// sum of an integer tensor is int64, the mean of one is an error.

// reduction describes one reduction call.
type reduction struct {
	op       kernel.OpID
	dims     []int
	keepDim  bool
	dtype    DType
	hasDType bool
	scalar   float64 // correction of var/std, p of norm
}

func (r reduction) run(t *Tensor) *Tensor {
	if err := inputErr(r.op.String(), t); err != nil {
		return failed(err)
	}
	c := dispatch.NewCall(r.op, t.Device(), 1, 1)
	if err := setDims(c, r.dims, t.Dim()); err != nil {
		dispatch.Free(c)
		return failed(t.opError(r.op.String(), kernel.ErrIndex, "%v", kernel.AsOpError(err).Detail))
	}
	c.In[0] = t.operand()
	c.KeepDim = r.keepDim
	c.DType, c.HasDType = r.dtype, r.hasDType
	c.Scalars[0] = kernel.FloatScalar(r.scalar)
	y := run(c)
	if recording(t) {
		r.record(t, y)
	}
	return y
}

// setDims normalizes dims into c.Dims, rejecting repeats.
func setDims(c *kernel.Call, dims []int, ndim int) error {
	if len(dims) == 0 {
		return nil
	}
	mask, err := kernel.NormalizeDims(dims, ndim)
	if err != nil {
		return err
	}
	c.Dims = c.NewInts(len(dims))[:0]
	for d, m := range mask {
		if m {
			c.Dims = append(c.Dims, d)
		}
	}
	if ndim == 0 { // dim 0 or -1 of a 0-dim tensor reduces nothing
		c.Dims = append(c.Dims, 0)
	}
	return nil
}

// Sum returns the sum over dims (all when none).
func (t *Tensor) Sum(dims ...int) *Tensor { return reduction{op: kernel.OpSum, dims: dims}.run(t) }

// SumKeepDim is Sum keeping the reduced dims as size 1.
func (t *Tensor) SumKeepDim(dims ...int) *Tensor {
	return reduction{op: kernel.OpSum, dims: dims, keepDim: true}.run(t)
}

// SumDType is Sum computed in and returning dtype d (PyTorch's dtype=:
// "the input tensor is casted to dtype before the operation is
// performed", so a sum to float16 adds float16 values and a sum to bool
// tells whether some element is non-zero).
func (t *Tensor) SumDType(d DType, keepDim bool, dims ...int) *Tensor {
	return t.reduceAs(kernel.OpSum, d, keepDim, dims)
}

// Mean returns the mean over dims (all when none); t must be floating.
func (t *Tensor) Mean(dims ...int) *Tensor { return reduction{op: kernel.OpMean, dims: dims}.run(t) }

// MeanKeepDim is Mean keeping the reduced dims as size 1.
func (t *Tensor) MeanKeepDim(dims ...int) *Tensor {
	return reduction{op: kernel.OpMean, dims: dims, keepDim: true}.run(t)
}

// MeanDType is Mean computed in and returning the floating dtype d (the
// input cast to d first, as PyTorch's dtype=).
func (t *Tensor) MeanDType(d DType, keepDim bool, dims ...int) *Tensor {
	return t.reduceAs(kernel.OpMean, d, keepDim, dims)
}

// Prod returns the product over dims (all when none).
func (t *Tensor) Prod(dims ...int) *Tensor { return reduction{op: kernel.OpProd, dims: dims}.run(t) }

// ProdKeepDim is Prod keeping the reduced dims as size 1.
func (t *Tensor) ProdKeepDim(dims ...int) *Tensor {
	return reduction{op: kernel.OpProd, dims: dims, keepDim: true}.run(t)
}

// Amax returns the maximum over dims (all when none); NaN wins.
func (t *Tensor) Amax(dims ...int) *Tensor { return reduction{op: kernel.OpAmax, dims: dims}.run(t) }

// AmaxKeepDim is Amax keeping the reduced dims as size 1.
func (t *Tensor) AmaxKeepDim(dims ...int) *Tensor {
	return reduction{op: kernel.OpAmax, dims: dims, keepDim: true}.run(t)
}

// Amin returns the minimum over dims (all when none); NaN wins.
func (t *Tensor) Amin(dims ...int) *Tensor { return reduction{op: kernel.OpAmin, dims: dims}.run(t) }

// AminKeepDim is Amin keeping the reduced dims as size 1.
func (t *Tensor) AminKeepDim(dims ...int) *Tensor {
	return reduction{op: kernel.OpAmin, dims: dims, keepDim: true}.run(t)
}

// Max returns the largest element as a 0-dim tensor (torch.max(t)).
func (t *Tensor) Max() *Tensor { return t.allExtreme(kernel.OpAmax, "max") }

// Min returns the smallest element as a 0-dim tensor (torch.min(t)).
func (t *Tensor) Min() *Tensor { return t.allExtreme(kernel.OpAmin, "min") }

func (t *Tensor) allExtreme(op kernel.OpID, name string) *Tensor {
	if err := inputErr(name, t); err != nil {
		return failed(err)
	}
	if t.Numel() == 0 {
		return failed(t.opError(name, kernel.ErrArgument, "%s(): Expected reduction dim to be specified for "+
			"input.numel() == 0. Specify the reduction dim with the 'dim' argument.", name))
	}
	return reduction{op: op}.run(t)
}

// MaxDim returns the largest values along dim and their indices (the first
// one among equals; the first NaN).
func (t *Tensor) MaxDim(dim int, keepDim bool) (values, indices *Tensor) {
	return t.extremeDim(kernel.OpMaxDim, dim, keepDim)
}

// MinDim returns the smallest values along dim and their indices.
func (t *Tensor) MinDim(dim int, keepDim bool) (values, indices *Tensor) {
	return t.extremeDim(kernel.OpMinDim, dim, keepDim)
}

func (t *Tensor) extremeDim(op kernel.OpID, dim int, keepDim bool) (*Tensor, *Tensor) {
	if err := inputErr(op.String(), t); err != nil {
		return failed(err), failed(err)
	}
	values, indices := runOp2(op, func(c *kernel.Call) error {
		c.KeepDim = keepDim
		return withDim(dim, t.Dim())(c)
	}, t)
	if recording(t) && values.err == nil {
		recordExtremeDim(op, t, values, indices, dim, keepDim)
	}
	return values, indices
}

// Argmax returns the flat index of the largest element (0-dim int64).
func (t *Tensor) Argmax() *Tensor { return t.argExtreme(kernel.OpArgmax, 0, false, true) }

// ArgmaxDim returns the indices of the largest values along dim.
func (t *Tensor) ArgmaxDim(dim int, keepDim bool) *Tensor {
	return t.argExtreme(kernel.OpArgmax, dim, keepDim, false)
}

// Argmin returns the flat index of the smallest element (0-dim int64).
func (t *Tensor) Argmin() *Tensor { return t.argExtreme(kernel.OpArgmin, 0, false, true) }

// ArgminDim returns the indices of the smallest values along dim.
func (t *Tensor) ArgminDim(dim int, keepDim bool) *Tensor {
	return t.argExtreme(kernel.OpArgmin, dim, keepDim, false)
}

func (t *Tensor) argExtreme(op kernel.OpID, dim int, keepDim, all bool) *Tensor {
	if err := inputErr(op.String(), t); err != nil {
		return failed(err)
	}
	if all {
		// Over all elements: the index into the flattened tensor.
		return runOp(op, func(c *kernel.Call) error {
			c.Mode = 1
			return nil
		}, t.Reshape(-1))
	}
	return runOp(op, func(c *kernel.Call) error {
		c.KeepDim = keepDim
		return withDim(dim, t.Dim())(c)
	}, t)
}

// Var returns the variance over dims (all when none) with Bessel's
// correction (correction = 1).
func (t *Tensor) Var(dims ...int) *Tensor {
	return reduction{op: kernel.OpVar, dims: dims, scalar: 1}.run(t)
}

// VarCorrection returns the variance over dims dividing by N - correction.
func (t *Tensor) VarCorrection(correction float64, keepDim bool, dims ...int) *Tensor {
	return reduction{op: kernel.OpVar, dims: dims, keepDim: keepDim, scalar: correction}.run(t)
}

// Std returns the standard deviation over dims (all when none) with
// Bessel's correction.
func (t *Tensor) Std(dims ...int) *Tensor {
	return reduction{op: kernel.OpStd, dims: dims, scalar: 1}.run(t)
}

// StdCorrection returns the standard deviation dividing by N - correction.
func (t *Tensor) StdCorrection(correction float64, keepDim bool, dims ...int) *Tensor {
	return reduction{op: kernel.OpStd, dims: dims, keepDim: keepDim, scalar: correction}.run(t)
}

// Norm returns the p-norm over dims (all when none): p = 2 is the
// Euclidean (Frobenius) norm, 1 the sum of magnitudes, math.Inf(1) the
// largest magnitude, math.Inf(-1) the smallest, 0 the count of non-zeros.
func (t *Tensor) Norm(p float64, dims ...int) *Tensor {
	return reduction{op: kernel.OpNorm, dims: dims, scalar: p}.run(t)
}

// NormKeepDim is Norm keeping the reduced dims as size 1.
func (t *Tensor) NormKeepDim(p float64, dims ...int) *Tensor {
	return reduction{op: kernel.OpNorm, dims: dims, keepDim: true, scalar: p}.run(t)
}

// LogSumExp returns log(sum(exp(t))) over dims, computed stably.
func (t *Tensor) LogSumExp(dims ...int) *Tensor {
	return reduction{op: kernel.OpLogSumExp, dims: dims}.run(t)
}

// LogSumExpKeepDim is LogSumExp keeping the reduced dims as size 1.
func (t *Tensor) LogSumExpKeepDim(dims ...int) *Tensor {
	return reduction{op: kernel.OpLogSumExp, dims: dims, keepDim: true}.run(t)
}

// All reports whether every element over dims (all when none) is non-zero.
func (t *Tensor) All(dims ...int) *Tensor { return reduction{op: kernel.OpAll, dims: dims}.run(t) }

// AllKeepDim is All keeping the reduced dims as size 1.
func (t *Tensor) AllKeepDim(dims ...int) *Tensor {
	return reduction{op: kernel.OpAll, dims: dims, keepDim: true}.run(t)
}

// AnyKeepDim is Any keeping the reduced dims as size 1.
func (t *Tensor) AnyKeepDim(dims ...int) *Tensor {
	return reduction{op: kernel.OpAny, dims: dims, keepDim: true}.run(t)
}

// Any reports whether some element over dims (all when none) is non-zero.
func (t *Tensor) Any(dims ...int) *Tensor { return reduction{op: kernel.OpAny, dims: dims}.run(t) }

// CountNonzero counts the non-zero elements over dims (all when none).
func (t *Tensor) CountNonzero(dims ...int) *Tensor {
	return reduction{op: kernel.OpCountNonzero, dims: dims}.run(t)
}

// Cumsum returns the running sums along dim (int64 for integer inputs).
func (t *Tensor) Cumsum(dim int) *Tensor { return t.alongDim(kernel.OpCumsum, dim) }

// Cumprod returns the running products along dim.
func (t *Tensor) Cumprod(dim int) *Tensor { return t.alongDim(kernel.OpCumprod, dim) }

// Cumsum_ is Cumsum in place; it returns t (carrying the error of a failure).
func (t *Tensor) Cumsum_(dim int) *Tensor {
	return t.keepFailure(t.alongDimInPlace(kernel.OpCumsum, dim))
}

// Cumprod_ is Cumprod in place; it returns t (carrying the error of a failure).
func (t *Tensor) Cumprod_(dim int) *Tensor {
	return t.keepFailure(t.alongDimInPlace(kernel.OpCumprod, dim))
}

// alongDimInPlace computes a scan of t along dim and copies it into t (in
// t's dtype: the running sums of int32 are int64, then cast back). The
// derivative of cumprod reads t's old value, so while autograd records it
// is computed from a copy of t.
func (t *Tensor) alongDimInPlace(op kernel.OpID, dim int) *Tensor {
	if err := inputErr(op.String()+"_", t); err != nil {
		return failed(err)
	}
	src := t
	if op == kernel.OpCumprod && recording(t) {
		src = t.Clone()
	}
	r := src.alongDim(op, dim)
	if r.err != nil {
		return r
	}
	return t.Copy_(r)
}

// Softmax returns exp(t) normalized to sum to 1 along dim, computed stably.
func (t *Tensor) Softmax(dim int) *Tensor { return t.alongDim(kernel.OpSoftmax, dim) }

// LogSoftmax returns log(Softmax(dim)), computed stably.
func (t *Tensor) LogSoftmax(dim int) *Tensor { return t.alongDim(kernel.OpLogSoftmax, dim) }

func (t *Tensor) alongDim(op kernel.OpID, dim int) *Tensor { return t.alongDimAs(op, dim, 0, false) }

// alongDimAs is alongDim with the result dtype d when hasDType (PyTorch's
// dtype= of cumsum, cumprod, softmax and log_softmax).
func (t *Tensor) alongDimAs(op kernel.OpID, dim int, d DType, hasDType bool) *Tensor {
	if err := inputErr(op.String(), t); err != nil {
		return failed(err)
	}
	y := runOp(op, func(c *kernel.Call) error {
		c.DType, c.HasDType = d, hasDType
		return withDim(dim, t.Dim())(c)
	}, t)
	if recording(t) {
		recordAlongDim(op, t, y, dim)
	}
	return y
}

// SoftmaxBackward is the gradient of Softmax(dim) given its output y and
// the gradient g of the output.
func SoftmaxBackward(g, y *Tensor, dim int) *Tensor {
	return softmaxGrad(kernel.OpSoftmaxBackward, g, y, dim)
}

// LogSoftmaxBackward is the gradient of LogSoftmax(dim) given its output y
// and the gradient g of the output.
func LogSoftmaxBackward(g, y *Tensor, dim int) *Tensor {
	return softmaxGrad(kernel.OpLogSoftmaxBackward, g, y, dim)
}

func softmaxGrad(op kernel.OpID, g, y *Tensor, dim int) *Tensor {
	if err := inputErr(op.String(), g, y); err != nil {
		return failed(err)
	}
	return runOp(op, withDim(dim, y.Dim()), g, y)
}
