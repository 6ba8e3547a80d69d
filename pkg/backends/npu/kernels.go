package npu

import (
	"slices"
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// aclDType is the ACL number of each dtype.
var aclDType = map[dtype.DType]int32{
	dtype.Float32: 0, dtype.Float16: 1, dtype.Int8: 2, dtype.Int32: 3, dtype.Uint8: 4, dtype.Int16: 6,
	dtype.Int64: 9, dtype.Float64: 11, dtype.Bool: 12, dtype.BFloat16: 27,
}

// tensor describes an operand on device dev for the shim.
func tensor(o *kernel.Operand, dev int) (npushim.Tensor, error) {
	var t npushim.Tensor
	m, ok := o.Mem.(*Memory)
	if !ok {
		return t, kernel.Errorf(kernel.ErrDevice, "an operand on %v is not NPU memory", o.Mem.Device())
	}
	if m.dev != dev {
		return t, kernel.Errorf(kernel.ErrDevice, "an operand is on npu:%d, the op on npu:%d", m.dev, dev)
	}
	if len(o.Shape) > npushim.MaxDims {
		return t, kernel.Errorf(kernel.ErrShape, "the NPU takes at most %d dims, got %d", npushim.MaxDims, len(o.Shape))
	}
	dt, ok := aclDType[o.DType]
	if !ok {
		return t, kernel.Errorf(kernel.ErrDType, "no ACL type for %v", o.DType)
	}
	t.Data, t.DType, t.NDim = m.blk.ptr, dt, int32(len(o.Shape))
	for i := range o.Shape {
		t.Shape[i], t.Strides[i] = int64(o.Shape[i]), int64(o.Strides[i])
	}
	t.Offset = int64(o.Offset)
	t.Storage = int64(m.n / o.DType.ItemSize())
	return t, nil
}

// launch runs op over the call's output and inputs (in that order); a nil
// operand is an optional tensor left out.
func launch(c *kernel.Call, op int, a *npushim.Attrs, ops ...*kernel.Operand) error {
	dev := c.Device.Index
	if c.Device.Type != device.NPU || dev < 0 { // no index (a creation op's "npu"): where the output was allocated
		dev = deviceOf(ops)
	}
	if err := checkDTypes(op, ops); err != nil {
		return err
	}
	ts := make([]npushim.Tensor, len(ops))
	for i, o := range ops {
		if o == nil { // an optional tensor left out (the nn ops): NULL
			ts[i].NDim = -1
			continue
		}
		t, err := tensor(o, dev)
		if err != nil {
			return err
		}
		ts[i] = t
	}
	if a == nil {
		a = &npushim.Attrs{}
	}
	return submit(c.Op.String(), dev, streamOf(dev), op, ts, a)
}

func deviceOf(ops []*kernel.Operand) int {
	for _, o := range ops {
		if o == nil {
			continue
		}
		if m, ok := o.Mem.(*Memory); ok {
			return m.dev
		}
	}
	return 0
}

var binaryOps = map[kernel.OpID]int{kernel.OpAdd: npushim.Add, kernel.OpSub: npushim.Sub, kernel.OpMul: npushim.Mul,
	kernel.OpDiv: npushim.Div, kernel.OpMaximum: npushim.Maximum, kernel.OpMinimum: npushim.Minimum}

var unaryOps = map[kernel.OpID]int{kernel.OpNeg: npushim.Neg, kernel.OpExp: npushim.Exp, kernel.OpLog: npushim.Log,
	kernel.OpSqrt: npushim.Sqrt, kernel.OpAbs: npushim.Abs, kernel.OpRelu: npushim.Relu, kernel.OpSigmoid: npushim.Sigmoid,
	kernel.OpTanh: npushim.Tanh}

func init() {
	for op, n := range binaryOps {
		kernel.Register(op, device.NPU, binaryKernel(n))
	}
	for op, n := range unaryOps {
		kernel.Register(op, device.NPU, func(c *kernel.Call) error {
			if c.Mode != 0 {
				return kernel.Errorf(kernel.ErrNotImplemented, "this form of %s is not on the NPU", c.Op)
			}
			return launch(c, n, nil, &c.Out[0], &c.In[0])
		})
	}
	compare := map[kernel.OpID]int{kernel.OpEq: npushim.Eq, kernel.OpNe: npushim.Ne, kernel.OpLt: npushim.Lt,
		kernel.OpLe: npushim.Le, kernel.OpGt: npushim.Gt, kernel.OpGe: npushim.Ge}
	for op, n := range compare {
		kernel.Register(op, device.NPU, func(c *kernel.Call) error {
			if len(c.In) == 2 {
				return launch(c, n, nil, &c.Out[0], &c.In[0], &c.In[1])
			}
			return launch(c, n+npushim.EqScalar-npushim.Eq, scalars(c.Scalars[0]), &c.Out[0], &c.In[0])
		})
	}
	kernel.Register(kernel.OpPow, device.NPU, func(c *kernel.Call) error {
		if len(c.In) == 2 {
			return launch(c, npushim.Pow, nil, &c.Out[0], &c.In[0], &c.In[1])
		}
		if c.Mode != 0 {
			return kernel.Errorf(kernel.ErrNotImplemented, "this form of pow is not on the NPU")
		}
		return launch(c, npushim.PowScalar, scalars(c.Scalars[0]), &c.Out[0], &c.In[0])
	})
	kernel.Register(kernel.OpWhere, device.NPU, func(c *kernel.Call) error {
		return launch(c, npushim.Where, nil, &c.Out[0], &c.In[0], &c.In[1], &c.In[2])
	})
	kernel.Register(kernel.OpClamp, device.NPU, func(c *kernel.Call) error {
		if c.Mode != 3 { // both bounds
			return kernel.Errorf(kernel.ErrNotImplemented, "clamp with one bound is not on the NPU (use maximum or minimum)")
		}
		return launch(c, npushim.Clamp, scalars(c.Scalars[0], c.Scalars[1]), &c.Out[0], &c.In[0])
	})
	kernel.Register(kernel.OpArgmax, device.NPU, func(c *kernel.Call) error {
		a := &npushim.Attrs{I: [npushim.MaxDims]int64{int64(c.Dim)}}
		if c.KeepDim {
			a.Flag = 1
		}
		if c.Mode == 1 { // over the flattened input (torch passes it 1-D)
			a.I[0] = 0
		}
		return launch(c, npushim.ArgMax, a, &c.Out[0], &c.In[0])
	})
	kernel.Register(kernel.OpSquare, device.NPU, func(c *kernel.Call) error {
		return launch(c, npushim.Mul, nil, &c.Out[0], &c.In[0], &c.In[0])
	})
	kernel.Register(kernel.OpThresholdBackward, device.NPU, func(c *kernel.Call) error {
		return launch(c, npushim.ThresholdBackward, scalars(c.Scalars[0]), &c.Out[0], &c.In[0], &c.In[1])
	})
	alongDim := map[kernel.OpID]int{kernel.OpSoftmax: npushim.Softmax, kernel.OpLogSoftmax: npushim.LogSoftmax,
		kernel.OpSoftmaxBackward: npushim.SoftmaxBackward, kernel.OpLogSoftmaxBackward: npushim.LogSoftmaxBackward}
	for op, n := range alongDim {
		kernel.Register(op, device.NPU, func(c *kernel.Call) error {
			a := &npushim.Attrs{I: [npushim.MaxDims]int64{int64(c.Dim)}}
			ops := []*kernel.Operand{&c.Out[0], &c.In[0]}
			if len(c.In) > 1 {
				ops = append(ops, &c.In[1])
			}
			return launch(c, n, a, ops...)
		})
	}
	kernel.Register(kernel.OpGelu, device.NPU, geluKernel)
	kernel.Register(kernel.OpSum, device.NPU, reduceKernel(npushim.ReduceSum))
	kernel.Register(kernel.OpMean, device.NPU, reduceKernel(npushim.Mean))
	kernel.Register(kernel.OpAmax, device.NPU, reduceKernel(npushim.Amax))
	kernel.Register(kernel.OpMm, device.NPU, matmulKernel)
	kernel.Register(kernel.OpBmm, device.NPU, matmulKernel)
	kernel.Register(kernel.OpAddmm, device.NPU, addmmKernel)
	kernel.Register(kernel.OpBaddbmm, device.NPU, addmmKernel)
	kernel.Register(kernel.OpCopy, device.NPU, copyKernel)
	kernel.Register(kernel.OpFill, device.NPU, func(c *kernel.Call) error {
		if v := c.Scalars[0]; !v.IsFloat() && v.Int() == 0 || v.IsFloat() && v.Float() == 0 {
			return launch(c, npushim.Zero, nil, &c.Out[0])
		}
		return launch(c, npushim.Fill, scalars(c.Scalars[0]), &c.Out[0])
	})
}

// binaryKernel runs a two-tensor op, or a tensor and a Go scalar (add and
// mul; sub and div as add and mul of the negated or inverted scalar).
func binaryKernel(n int) kernel.KernelFunc {
	return func(c *kernel.Call) error {
		if c.Mode != 0 {
			return kernel.Errorf(kernel.ErrNotImplemented, "this form of %s is not on the NPU", c.Op)
		}
		alpha := kernel.IntScalar(1)
		if c.Scalars[1] != (kernel.Scalar{}) {
			alpha = c.Scalars[1]
		}
		if len(c.In) == 2 {
			return launch(c, n, scalars(alpha), &c.Out[0], &c.In[0], &c.In[1])
		}
		s := c.Scalars[0]
		switch n {
		case npushim.Add:
			return launch(c, npushim.Adds, scalars(s, alpha), &c.Out[0], &c.In[0])
		case npushim.Sub:
			return launch(c, npushim.Adds, scalars(negated(s), alpha), &c.Out[0], &c.In[0])
		case npushim.Mul:
			return launch(c, npushim.Muls, scalars(s), &c.Out[0], &c.In[0])
		case npushim.Div:
			if c.Out[0].DType.IsFloatingPoint() {
				return launch(c, npushim.Muls, scalars(kernel.FloatScalar(1/s.Float())), &c.Out[0], &c.In[0])
			}
		}
		return kernel.Errorf(kernel.ErrNotImplemented, "%s with a Go scalar is not on the NPU", c.Op)
	}
}

// geluKernel runs gelu: the exact form (approximate='none') by
// aclnnGeluV2(x, 0, y), the tanh form by aclnnGelu, which is the tanh
// approximation (hicann/ops-nn activation/gelu/docs/aclnnGelu.md). A CANN
// without aclnnGeluV2 declines the exact form, which then runs on the host.
func geluKernel(c *kernel.Call) error {
	switch c.Mode {
	case kernel.GeluTanh:
		return launch(c, npushim.Gelu, nil, &c.Out[0], &c.In[0])
	case kernel.GeluNone:
		// aclnnGeluV2GetWorkspaceSize(x, int64_t approximate, y, ...): ops-nn activation/gelu_v2/docs/aclnnGeluV2.md
		return launch(c, npushim.GeluV2, &npushim.Attrs{I: [npushim.MaxDims]int64{0}}, &c.Out[0], &c.In[0])
	}
	return kernel.Errorf(kernel.ErrNotImplemented, "this form of %s is not on the NPU", c.Op)
}

// reduceKernel runs sum (aclnnReduceSum), mean (aclnnMean) or amax
// (aclnnAmax) over the call's dims. ReduceSum and Mean cast self to their
// dtype argument, which we pass as out's, as ReduceSum requires (hicann/ops-math
// math/reduce_sum/op_api/aclnn_reduce_sum.cpp CheckDtypeValid), so a sum of
// int32 to int64 is one call, as PyTorch's result dtype asks. Mean takes no
// bool (math/reduce_mean/op_api/aclnn_mean.cpp: the dtype table declines it;
// pkg/torch casts before a mean with dtype=). Amax needs out's dtype to be
// self's (math/reduce_max/op_api/aclnn_amax.cpp): the table declines another.
func reduceKernel(n int) kernel.KernelFunc {
	return func(c *kernel.Call) error {
		in, out := &c.In[0], &c.Out[0]
		a := &npushim.Attrs{DType: aclDType[out.DType]}
		if c.KeepDim {
			a.Flag = 1
		}
		dims := c.Dims
		if len(in.Shape) == 0 {
			// A 0-dim input's dim 0 (or -1) is PyTorch's: ACLNN takes [-1, 0]
			// too, and its empty dims mean every dim (cann-api.md 13.3).
			dims = nil
		} else if len(dims) == 0 { // every dim, named
			for d := range in.Shape {
				dims = append(dims, d)
			}
		}
		for i, d := range dims {
			a.I[i] = int64(d)
		}
		a.NI = int32(len(dims))
		return launch(c, n, a, out, in)
	}
}

// matmulKernel runs mm and bmm by aclnnMatmul with the SoC's cubeMathType.
func matmulKernel(c *kernel.Call) error {
	return launch(c, npushim.Matmul, matmulAttrs(), &c.Out[0], &c.In[0], &c.In[1])
}

func matmulAttrs() *npushim.Attrs {
	return &npushim.Attrs{I: [npushim.MaxDims]int64{cubeMathType()}}
}

// addmmKernel is beta*input + alpha*(a @ b): the product into the output,
// scaled, then the input added (ignored when beta is 0, as in PyTorch).
// Every launch is checked first: the output may be the input (addmm_), so
// the call must not decline after the product overwrote it.
func addmmKernel(c *kernel.Call) error {
	out := &c.Out[0]
	for _, step := range []struct {
		op  int
		ops []*kernel.Operand
	}{{npushim.Matmul, []*kernel.Operand{out, &c.In[1], &c.In[2]}}, {npushim.Muls, []*kernel.Operand{out, out}},
		{npushim.Add, []*kernel.Operand{out, out, &c.In[0]}}} {
		if err := checkDTypes(step.op, step.ops); err != nil {
			return err
		}
	}
	if err := launch(c, npushim.Matmul, matmulAttrs(), out, &c.In[1], &c.In[2]); err != nil {
		return err
	}
	beta, alpha := c.Scalars[0], c.Scalars[1]
	if alpha.Float() != 1 {
		if err := launch(c, npushim.Muls, scalars(alpha), out, out); err != nil {
			return err
		}
	}
	if beta.Float() == 0 {
		return nil
	}
	return launch(c, npushim.Add, scalars(beta), out, out, &c.In[0])
}

// copyKernel copies within the NPU (any strides, any dtypes), or between
// the host and the NPU when both sides are dense, in one dtype and layout
// (pkg/torch stages other copies through such a copy).
func copyKernel(c *kernel.Call) error {
	in, out := &c.In[0], &c.Out[0]
	_, inNPU := in.Mem.(*Memory)
	_, outNPU := out.Mem.(*Memory)
	if inNPU && outNPU {
		return launch(c, npushim.Copy, nil, out, in)
	}
	if in.DType != out.DType || !slices.Equal(in.Shape, out.Shape) || !kernel.IsContiguous(in.Shape, in.Strides) ||
		!kernel.IsContiguous(out.Shape, out.Strides) {
		return kernel.Errorf(kernel.ErrNotImplemented, "a copy between the host and the NPU needs contiguous operands of one dtype")
	}
	n := kernel.Numel(out.Shape) * out.DType.ItemSize()
	if n == 0 {
		return nil
	}
	if outNPU {
		m := out.Mem.(*Memory)
		src := unsafe.Add(in.Mem.HostPtr(), in.Offset*in.DType.ItemSize())
		return statusError("copy_", npushim.CopyToDevice(m.dev, m.blk.ptr+uint64(out.Offset*out.DType.ItemSize()), src, n))
	}
	m := in.Mem.(*Memory)
	dst := unsafe.Add(out.Mem.HostPtr(), out.Offset*out.DType.ItemSize())
	return statusError("copy_", npushim.CopyToHost(m.dev, dst, m.blk.ptr+uint64(in.Offset*in.DType.ItemSize()), n))
}

// scalars are the scalar attributes of a launch, each in its own kind (a
// Go float, int or bool), which the shim passes to ACLNN as such.
func scalars(ss ...kernel.Scalar) *npushim.Attrs {
	a := &npushim.Attrs{}
	for k, s := range ss {
		switch {
		case s.IsFloat():
			a.SK[k], a.F[k] = npushim.ScalarFloat, s.Float()
		case s.Kind() == dtype.KindBool:
			a.SK[k], a.SI[k] = npushim.ScalarBool, s.Int()
		default:
			a.SK[k], a.SI[k] = npushim.ScalarInt, s.Int()
		}
	}
	return a
}

// negated is -s in s's kind.
func negated(s kernel.Scalar) kernel.Scalar {
	if s.IsFloat() {
		return kernel.FloatScalar(-s.Float())
	}
	return kernel.IntScalar(-s.Int())
}
