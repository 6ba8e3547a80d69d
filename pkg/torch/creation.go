package torch

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// emptyOpts makes an uninitialised tensor of shape and dtype on o's device.
func emptyOpts(shape []int, dt DType, o *options) *Tensor { return emptyOp("empty", shape, dt, o) }

// emptyOp is emptyOpts for op (zeros, rand, ...), which its errors name:
// a negative size, or more bytes than a tensor may have (PyTorch's
// "Storage size calculation overflowed with sizes=[...]").
func emptyOp(op string, shape []int, dt DType, o *options) *Tensor {
	if o.err != nil {
		return failed(o.err)
	}
	if !dt.Valid() {
		return failed(creationError(op, kernel.Errorf(kernel.ErrDType, "invalid dtype %d", dt), shape, dt, o.dev))
	}
	nbytes, err := kernel.CheckedNbytes(shape, dt.ItemSize())
	if err != nil {
		return failed(creationError(op, err, shape, dt, o.dev))
	}
	m, err := kernel.Allocate(o.dev, nbytes)
	if err != nil {
		return failed(creationError(op, err, shape, dt, o.dev))
	}
	t := newOwner(m, dt, shape, nil, 0)
	kernel.ContiguousStrides(t.shape, t.strides)
	return t
}

// creationError names op and what it was asked to make in err.
func creationError(op string, err error, shape []int, dt DType, dev Device) error {
	e := kernel.AsOpError(err)
	if e.Op == "" {
		e.Op = op
		e.Shapes, e.DTypes, e.Devices = [][]int{append([]int(nil), shape...)}, []DType{dt}, []Device{dev}
	}
	return e
}

// finishCreation applies requires_grad to a new tensor; the writes that
// initialised it are not in-place ops, so its version starts at 0.
func finishCreation(t *Tensor, o *options) *Tensor {
	if t.err != nil {
		return t
	}
	t.storage.version.Store(0)
	if o.requiresGrad {
		return t.RequiresGrad_(true)
	}
	return t
}

// Empty returns a tensor of the given shape whose values are unspecified
// (zeros on the CPU).
func Empty(shape []int, opts ...Option) *Tensor {
	o := collect(opts)
	return finishCreation(emptyOpts(shape, o.floatDType(), &o), &o)
}

// Zeros returns a tensor filled with 0.
func Zeros(shape []int, opts ...Option) *Tensor {
	o := collect(opts)
	t := emptyOp("zeros", shape, o.floatDType(), &o)
	if t.err == nil && !isZeroed(t.storage) {
		t = t.Fill_(0)
	}
	return finishCreation(t, &o)
}

// Ones returns a tensor filled with 1.
func Ones(shape []int, opts ...Option) *Tensor {
	o := collect(opts)
	return finishCreation(emptyOp("ones", shape, o.floatDType(), &o).Fill_(1), &o)
}

// Full returns a tensor filled with value; its dtype is that of the value
// (bool, int64, or the default float) unless one is given.
func Full(shape []int, value any, opts ...Option) *Tensor {
	o := collect(opts)
	s, err := kernel.ScalarOf(value)
	dt := s.DType()
	if s.IsFloat() {
		dt = o.floatDType()
	}
	dt = o.dtypeOr(dt)
	if err == nil {
		err = s.CheckFits(dt) // before allocating
	}
	if err != nil {
		return failed(creationError("full", err, shape, dt, o.dev))
	}
	return finishCreation(emptyOp("full", shape, dt, &o).fillFresh(s), &o)
}

// EmptyLike, ZerosLike, OnesLike, FullLike, RandLike and RandnLike make a
// tensor of t's shape, dtype and device (options override them), laid out
// as PyTorch's *_like ops with memory_format=torch.preserve_format lay it
// out: with t's strides when t is non-overlapping and dense (a transposed
// or permuted tensor), else dense in t's order of dimensions in memory.
func EmptyLike(t *Tensor, opts ...Option) *Tensor { return like("empty_like", t, opts, nil) }

// ZerosLike is Zeros with t's shape, dtype, device and layout.
func ZerosLike(t *Tensor, opts ...Option) *Tensor {
	return like("zeros_like", t, opts, func(r *Tensor, _ *options) *Tensor {
		if isZeroed(r.storage) {
			return r
		}
		return r.Fill_(0)
	})
}

// OnesLike is Ones with t's shape, dtype, device and layout.
func OnesLike(t *Tensor, opts ...Option) *Tensor {
	return like("ones_like", t, opts, func(r *Tensor, _ *options) *Tensor { return r.fillFresh(1) })
}

// RandLike is Rand with t's shape, dtype, device and layout (the values
// fill memory in order, as PyTorch's).
func RandLike(t *Tensor, opts ...Option) *Tensor {
	return like("rand_like", t, opts, func(r *Tensor, o *options) *Tensor {
		return r.Uniform_(0, 1, WithGenerator(o.generator()))
	})
}

// RandnLike is Randn with t's shape, dtype, device and layout (the values
// fill memory in order, as PyTorch's).
func RandnLike(t *Tensor, opts ...Option) *Tensor {
	return like("randn_like", t, opts, func(r *Tensor, o *options) *Tensor {
		return r.Normal_(0, 1, WithGenerator(o.generator()))
	})
}

// FullLike is Full with t's shape, dtype, device and layout.
func FullLike(t *Tensor, value any, opts ...Option) *Tensor {
	if err := inputErr("full_like", t); err != nil {
		return failed(err)
	}
	o := collect(opts)
	dt := o.dtypeOr(t.dtype)
	s, err := kernel.ScalarOf(value)
	if err == nil {
		err = s.CheckFits(dt) // before allocating
	}
	if err != nil {
		return failed(creationError("full_like", err, t.shape, dt, t.Device()))
	}
	return like("full_like", t, opts, func(r *Tensor, _ *options) *Tensor { return r.Fill_(s) })
}

// like makes an uninitialised tensor of t's shape, dtype and device (opts
// override them) with t's layout (likeStrides), and fills it with fill
// (nil: leaves it empty) before applying requires_grad; op names it in
// errors.
func like(op string, t *Tensor, opts []Option, fill func(r *Tensor, o *options) *Tensor) *Tensor {
	if err := inputErr(op, t); err != nil {
		return failed(err)
	}
	o := collect(append([]Option{WithDType(t.dtype), OnDevice(t.Device())}, opts...))
	r := emptyOp(op, t.shape, o.floatDType(), &o)
	if r.err != nil {
		return r
	}
	r.setLayout(t.shape, likeStrides(t))
	if fill != nil {
		r = fill(r, &o)
	}
	return finishCreation(r, &o)
}

// likeStrides are the strides of PyTorch's empty_like(t) with
// memory_format=torch.preserve_format: t's own when t is non-overlapping
// and dense, else dense strides that keep t's order of dimensions in memory
// (infer_dense_strides, the layout TensorIterator gives x.T + 1), which
// are contiguous for a contiguous-ordered t. Both cover exactly t.Numel()
// elements, as the contiguous strides do.
func likeStrides(t *Tensor) []int {
	if kernel.IsNonOverlappingAndDense(t.shape, t.strides) {
		return t.strides
	}
	in := []kernel.Operand{{Shape: t.shape, Strides: t.strides}}
	return kernel.ElementwiseStrides(t.shape, in, make([]int, len(t.shape)))
}

// Arange returns 0, 1, ..., end-1 (int64 for an integer end, the default
// float dtype for a float one).
func Arange(end any, opts ...Option) *Tensor { return ArangeRange(0, end, 1, opts...) }

// ArangeRange returns start, start+step, ... below end (above it for a
// negative step). The dtype is int64 when all three are integers, else the
// default float dtype, unless one is given.
func ArangeRange(start, end, step any, opts ...Option) *Tensor {
	o := collect(opts)
	if o.err != nil {
		return failed(o.err)
	}
	var s [3]kernel.Scalar
	isFloat := false
	for i, v := range []any{start, end, step} {
		sc, err := kernel.ScalarOf(v)
		if err != nil {
			return failed(err)
		}
		s[i] = sc
		isFloat = isFloat || sc.IsFloat()
	}
	dt := Int64
	if isFloat {
		dt = o.floatDType()
	}
	dt = o.dtypeOr(dt)
	n, err := arangeSize(s[0], s[1], s[2], isFloat)
	if err != nil {
		e := kernel.AsOpError(err)
		e.Op = "arange"
		return failed(e)
	}
	c := dispatch.NewCall(kernel.OpArange, o.dev, 0, 1)
	c.Scalars[0], c.Scalars[1] = s[0], s[2]
	c.Ints = c.NewInts(1)
	c.Ints[0] = n
	c.DType = dt
	return finishCreation(run(c), &o)
}

// arangeSize is the number of elements of arange(start, end, step), with
// PyTorch's checks and messages; integers count exactly (in uint64, so
// that no range of int64s overflows), floats as ceil((end-start)/step).
func arangeSize(start, end, step kernel.Scalar, isFloat bool) (int, error) {
	a, b, st := start.Float(), end.Float(), step.Float()
	down := st > 0 && b < a || st < 0 && b > a
	if !isFloat {
		down = step.Int() > 0 && end.Int() < start.Int() || step.Int() < 0 && end.Int() > start.Int()
	}
	switch {
	case st == 0:
		return 0, kernel.Errorf(ErrArgument, "step must be nonzero")
	case math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0):
		return 0, kernel.Errorf(ErrArgument, "unsupported range: %s -> %s", start, end)
	case down:
		return 0, kernel.Errorf(ErrArgument, "upper bound and larger bound inconsistent with step sign")
	}
	if isFloat {
		n := math.Ceil((b - a) / st)
		if !(n >= 0 && n < 1<<63) { // NaN and infinities too
			return 0, kernel.Errorf(ErrShape, "invalid size, possible overflow?")
		}
		return int(n), nil
	}
	i, j, k := start.Int(), end.Int(), step.Int()
	span, by := uint64(j)-uint64(i), uint64(k) // exact: the signs agree
	if k < 0 {
		span, by = uint64(i)-uint64(j), -uint64(k)
	}
	n := span / by
	if span%by != 0 {
		n++
	}
	if n > math.MaxInt64 {
		return 0, kernel.Errorf(ErrShape, "invalid size, possible overflow?")
	}
	return int(n), nil
}

// Linspace returns steps values evenly spaced from start to end inclusive.
func Linspace(start, end float64, steps int, opts ...Option) *Tensor {
	o := collect(opts)
	if o.err != nil {
		return failed(o.err)
	}
	if steps < 0 {
		return failed(&Error{Op: "linspace", Kind: ErrArgument, Detail: "number of steps must be non-negative"})
	}
	c := dispatch.NewCall(kernel.OpLinspace, o.dev, 0, 1)
	c.Scalars[0], c.Scalars[1] = kernel.FloatScalar(start), kernel.FloatScalar(end)
	c.Ints = c.NewInts(1)
	c.Ints[0] = steps
	c.DType = o.floatDType()
	return finishCreation(run(c), &o)
}

// Eye returns an n x m matrix (m = n when omitted) with ones on the diagonal.
func Eye(n int, opts ...Option) *Tensor { return EyeNM(n, n, opts...) }

// EyeNM returns an n x m matrix with ones on the diagonal.
func EyeNM(n, m int, opts ...Option) *Tensor {
	o := collect(opts)
	if n < 0 || m < 0 {
		name, v := "n", n
		if n >= 0 {
			name, v = "m", m
		}
		return failed(creationError("eye", kernel.Errorf(ErrArgument, "%s must be greater or equal to 0, got %d", name, v),
			[]int{n, m}, o.floatDType(), o.dev))
	}
	t := emptyOp("eye", []int{n, m}, o.floatDType(), &o)
	if t.err != nil {
		return t
	}
	if !isZeroed(t.storage) {
		t.Fill_(0)
	}
	if k := min(n, m); k > 0 {
		if d := t.AsStrided([]int{k}, []int{m + 1}, 0).Fill_(1); d.err != nil {
			return d
		}
	}
	return finishCreation(t, &o)
}

// Fill_ sets every element of t to value and returns t. A value out of
// the range of t's dtype is an error, as in PyTorch ("value cannot be
// converted to type int64_t without overflow"); t carries the error of a
// failure.
func (t *Tensor) Fill_(value any) *Tensor { return t.keepFailure(t.fill("fill_", value)) }

// fill is Fill_ (or Zero_, which op names) without keeping the failure.
func (t *Tensor) fill(op string, value any) *Tensor {
	if err := inputErr(op, t); err != nil {
		return failed(err)
	}
	s, err := kernel.ScalarOf(value)
	if err == nil {
		err = s.CheckFits(t.dtype)
	}
	if err != nil {
		return t.fail(op, err)
	}
	if err := t.checkBounds(op); err != nil {
		return failed(err)
	}
	if err := t.checkWritable(op); err != nil {
		return failed(err)
	}
	rec := recording(t) || (t.base != nil && recording(t.base))
	if rec {
		if err := checkLeafWrite(t, op); err != nil {
			return failed(err)
		}
	}
	c := dispatch.NewCall(kernel.OpFill, t.Device(), 0, 1)
	c.Scalars[0] = s
	if y := runInPlace(c, t); y.err != nil || !rec {
		return y
	}
	rebase(t, nil) // the new value is a constant
	return t
}

// Zero_ sets every element of t to 0 and returns t (carrying the error of
// a failure).
func (t *Tensor) Zero_() *Tensor { return t.keepFailure(t.fill("zero_", 0)) }

// isZeroed reports whether a storage's memory is known to hold zeros (fresh
// memory from the Go allocator).
func isZeroed(s *UntypedStorage) bool {
	z, ok := s.mem.(interface{ Zeroed() bool })
	return ok && z.Zeroed()
}
