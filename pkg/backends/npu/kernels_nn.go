package npu

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// The nn and indexing ops: index_select, gather, scatter (with add or
// multiply, or a value), scatter_add, index_add, masked_fill, cumsum,
// argmin, amin, max and min along a dim, prod, sort, topk, cat, flip,
// native_batch_norm and its backward, the convolution and its backward
// passes. Each runs one ACLNN op (docs/npu-ops.md gives the prototypes,
// dtypes and sources), or declines (ErrNotImplemented) a form the op does
// not take, which the dispatcher then runs by decomposition or on the host.
//
// The index ops read their index on the host first (one transfer, after the
// device is done): the ACLNN kernels do not check their indices, and
// PyTorch's errors for an index out of range depend on its values.

func init() {
	kernel.Register(kernel.OpIndexSelect, device.NPU, indexSelectKernel)
	kernel.Register(kernel.OpGather, device.NPU, gatherKernel)
	kernel.Register(kernel.OpScatter, device.NPU, scatterKernel)
	kernel.Register(kernel.OpScatterAdd, device.NPU, scatterKernel)
	kernel.Register(kernel.OpIndexAdd, device.NPU, indexAddKernel)
	kernel.Register(kernel.OpMaskedFill, device.NPU, maskedFillKernel)
	kernel.Register(kernel.OpCumsum, device.NPU, cumsumKernel)
	kernel.Register(kernel.OpArgmin, device.NPU, argminKernel)
	kernel.Register(kernel.OpAmin, device.NPU, reduceKernel(npushim.Amin))
	kernel.Register(kernel.OpMaxDim, device.NPU, withIndicesKernel(npushim.MaxDim))
	kernel.Register(kernel.OpMinDim, device.NPU, withIndicesKernel(npushim.MinDim))
	kernel.Register(kernel.OpProd, device.NPU, prodKernel)
	kernel.Register(kernel.OpSort, device.NPU, sortKernel)
	kernel.Register(kernel.OpTopk, device.NPU, topkKernel)
	kernel.Register(kernel.OpCat, device.NPU, catKernel)
	kernel.Register(kernel.OpFlip, device.NPU, flipKernel)
	kernel.Register(kernel.OpBatchNorm, device.NPU, batchNormKernel)
	kernel.Register(kernel.OpBatchNormBackward, device.NPU, batchNormBackwardKernel)
	kernel.Register(kernel.OpConv2d, device.NPU, convKernel)
	kernel.Register(kernel.OpConv2dBackwardInput, device.NPU, convBackwardKernel)
	kernel.Register(kernel.OpConv2dBackwardWeight, device.NPU, convBackwardKernel)
}

// dimAttrs are attributes with a dim in I[0] and keepdim in Flag.
func dimAttrs(dim int, keep bool) *npushim.Attrs {
	a := &npushim.Attrs{I: [npushim.MaxDims]int64{int64(dim)}}
	if keep {
		a.Flag = 1
	}
	return a
}

// readIndex reads the integer operand o (int32 or int64) from the device,
// in row-major order.
func readIndex(o *kernel.Operand) ([]int64, error) {
	n := o.Numel()
	if n == 0 {
		return nil, nil
	}
	m, ok := o.Mem.(*Memory)
	if !ok {
		return nil, kernel.Errorf(kernel.ErrDevice, "an index on %v is not NPU memory", o.Mem.Device())
	}
	size := o.DType.ItemSize()
	last := o.Offset
	for d, s := range o.Shape {
		last += (s - 1) * o.Strides[d]
	}
	buf := make([]byte, (last-o.Offset+1)*size)
	if err := m.ReadHost(buf, o.Offset*size); err != nil {
		return nil, err
	}
	vals := make([]int64, n)
	pos := make([]int, len(o.Shape))
	off := 0 // in elements, from o.Offset
	for i := range vals {
		b := buf[off*size:]
		if size == 8 {
			vals[i] = int64(binary.LittleEndian.Uint64(b))
		} else {
			vals[i] = int64(int32(binary.LittleEndian.Uint32(b)))
		}
		for d := len(pos) - 1; d >= 0; d-- { // the next row-major position
			pos[d]++
			off += o.Strides[d]
			if pos[d] < o.Shape[d] {
				break
			}
			off -= pos[d] * o.Strides[d]
			pos[d] = 0
		}
	}
	return vals, nil
}

// firstOutside is the first of vals outside [0, n), and whether there is one.
func firstOutside(vals []int64, n int) (int64, bool) {
	for _, v := range vals {
		if v < 0 || v >= int64(n) {
			return v, true
		}
	}
	return 0, false
}

// sizeAlong is o's size in dim (1 for a 0-dim operand).
func sizeAlong(o *kernel.Operand, dim int) int {
	if dim < len(o.Shape) {
		return o.Shape[dim]
	}
	return 1
}

// checkIndex declines the call unless op takes its operands, then reads
// the index ix and returns the CPU kernel's error (made by bad) for the
// first value outside [0, n).
func checkIndex(op int, ops []*kernel.Operand, ix *kernel.Operand, n int, bad func(v int64) error) error {
	if err := checkDTypes(op, ops); err != nil {
		return err
	}
	vals, err := readIndex(ix)
	if err != nil {
		return err
	}
	if v, out := firstOutside(vals, n); out {
		return bad(v)
	}
	return nil
}

// indexSelectKernel is index_select by aclnnIndexSelect.
func indexSelectKernel(c *kernel.Call) error {
	self, ix, out := &c.In[0], &c.In[1], &c.Out[0]
	if ix.Numel() == 0 {
		return nil // nothing to read (a 0-dim self's output is left as it is, as on the CPU)
	}
	ops := []*kernel.Operand{out, self, ix}
	n := sizeAlong(self, c.Dim)
	err := checkIndex(npushim.IndexSelect, ops, ix, n, func(v int64) error {
		return kernel.Errorf(kernel.ErrIndex, "INDICES element is out of DATA bounds, id=%d axis_dim=%d", v, n)
	})
	if err != nil {
		return err
	}
	return launch(c, npushim.IndexSelect, dimAttrs(c.Dim, false), ops...)
}

// outOfBounds is PyTorch's error for an index v out of range along dim.
func outOfBounds(dim, n int) func(v int64) error {
	return func(v int64) error {
		return kernel.Errorf(kernel.ErrIndex, "index %d is out of bounds for dimension %d with size %d", v, dim, n)
	}
}

// gatherKernel is gather by aclnnGather, which takes self and index of one
// rank (a 0-dim one counting as 1-D, as the meta function's rule).
func gatherKernel(c *kernel.Call) error {
	self, ix, out := &c.In[0], &c.In[1], &c.Out[0]
	if max(len(self.Shape), 1) != max(len(ix.Shape), 1) {
		return kernel.Errorf(kernel.ErrNotImplemented, "aclnnGather needs self and index of one rank")
	}
	ops := []*kernel.Operand{out, self, ix}
	n := sizeAlong(self, c.Dim)
	if err := checkIndex(npushim.Gather, ops, ix, n, outOfBounds(c.Dim, n)); err != nil {
		return err
	}
	if out.Numel() == 0 {
		return nil
	}
	return launch(c, npushim.Gather, dimAttrs(c.Dim, false), ops...)
}

// scatterKernel is scatter (with reduce add or multiply, or of a value) by
// aclnnScatter or aclnnScatterValue, and scatter_add by aclnnScatterAdd:
// self, index and src of one rank (the ACLNN ops' rule on Atlas A2/A3).
// scatter_reduce's reductions (mean, amax, amin, include_self) have no
// ACLNN form here and decline.
func scatterKernel(c *kernel.Call) error {
	self, ix, out := &c.In[0], &c.In[1], &c.Out[0]
	reduce := 1 // scatter_add
	if c.Op == kernel.OpScatter {
		switch c.Mode {
		case kernel.ReduceNone:
			reduce = 0
		case kernel.ReduceSum:
			reduce = 1
		case kernel.ReduceProd:
			reduce = 2
		default:
			return kernel.Errorf(kernel.ErrNotImplemented, "scatter with this reduction is not on the NPU")
		}
	}
	if len(self.Shape) != len(ix.Shape) || len(c.In) > 2 && len(c.In[2].Shape) != len(ix.Shape) {
		return kernel.Errorf(kernel.ErrNotImplemented, "aclnnScatter needs self, index and src of one rank")
	}
	a := &npushim.Attrs{I: [npushim.MaxDims]int64{int64(c.Dim), int64(reduce)}}
	op, ops := npushim.ScatterAdd, []*kernel.Operand{out, self, ix, nil}
	switch {
	case len(c.In) > 2 && c.Op == kernel.OpScatter:
		op, ops[3] = npushim.Scatter, &c.In[2]
	case len(c.In) > 2:
		ops[3] = &c.In[2]
	default:
		op, ops = npushim.ScatterValue, ops[:3]
		s := scalars(c.Scalars[0])
		s.I = a.I
		a = s
	}
	n := sizeAlong(out, c.Dim)
	if err := checkIndex(op, ops, ix, n, outOfBounds(c.Dim, n)); err != nil {
		return err
	}
	return launch(c, op, a, ops...)
}

// indexAddKernel is index_add by aclnnIndexAdd, whose indices must be in
// [0, size): negative ones (which PyTorch counts from the end) decline, as
// do a self and source of different ranks.
func indexAddKernel(c *kernel.Call) error {
	self, ix, src, out := &c.In[0], &c.In[1], &c.In[2], &c.Out[0]
	if len(self.Shape) != len(src.Shape) {
		return kernel.Errorf(kernel.ErrNotImplemented, "aclnnIndexAdd needs self and source of one rank")
	}
	ops := []*kernel.Operand{out, self, ix, src}
	n := sizeAlong(self, c.Dim)
	err := checkIndex(npushim.IndexAdd, ops, ix, n, func(v int64) error {
		if v < 0 && v >= -int64(n) {
			return kernel.Errorf(kernel.ErrNotImplemented, "aclnnIndexAdd takes no negative index")
		}
		return kernel.Errorf(kernel.ErrIndex, "index out of range in self")
	})
	if err != nil {
		return err
	}
	a := scalars(c.Scalars[0])
	a.I[0] = int64(c.Dim)
	return launch(c, npushim.IndexAdd, a, ops...)
}

// sameOperand reports whether a and b are the same elements.
func sameOperand(a, b *kernel.Operand) bool {
	return a.Mem == b.Mem && a.Offset == b.Offset && a.DType == b.DType && slices.Equal(a.Shape, b.Shape) &&
		slices.Equal(a.Strides, b.Strides)
}

// maskedFillKernel is masked_fill: the input copied to the output (unless
// it is the output, masked_fill_), then aclnnInplaceMaskedFillScalar on
// the output. Both launches are checked first. A bool tensor filled with
// NaN declines: the op converts the value to bool its own way on Atlas A2
// (aclnn_masked_fill_scalar.cpp: aclScalar::ToBool misjudges NaN).
func maskedFillKernel(c *kernel.Call) error {
	self, mask, out := &c.In[0], &c.In[1], &c.Out[0]
	v := c.Scalars[0]
	if out.DType == dtype.Bool && v.IsFloat() && math.IsNaN(v.Float()) {
		return kernel.Errorf(kernel.ErrNotImplemented, "masked_fill of a bool tensor with NaN is not on the NPU")
	}
	copyIn := !sameOperand(out, self)
	if copyIn {
		if err := checkDTypes(npushim.Copy, []*kernel.Operand{out, self}); err != nil {
			return err
		}
	}
	if err := checkDTypes(npushim.MaskedFill, []*kernel.Operand{out, mask}); err != nil {
		return err
	}
	if out.Numel() == 0 {
		return nil
	}
	if copyIn {
		if err := launch(c, npushim.Copy, nil, out, self); err != nil {
			return err
		}
	}
	return launch(c, npushim.MaskedFill, scalars(v), out, mask)
}

// cumsumKernel is cumsum by aclnnCumsum, whose dtype argument is out's.
func cumsumKernel(c *kernel.Call) error {
	a := dimAttrs(c.Dim, false)
	a.DType = aclDType[c.Out[0].DType]
	return launch(c, npushim.Cumsum, a, &c.Out[0], &c.In[0])
}

// argminKernel is argmin by aclnnArgMin (Mode 1: over the flattened
// input, which torch passes 1-D).
func argminKernel(c *kernel.Call) error {
	a := dimAttrs(c.Dim, c.KeepDim)
	if c.Mode == 1 {
		a.I[0] = 0
	}
	return launch(c, npushim.ArgMin, a, &c.Out[0], &c.In[0])
}

// withIndicesKernel is max or min along a dim, values and indices, by
// aclnnMaxDim or aclnnMinDim.
func withIndicesKernel(op int) kernel.KernelFunc {
	return func(c *kernel.Call) error {
		return launch(c, op, dimAttrs(c.Dim, c.KeepDim), &c.Out[0], &c.Out[1], &c.In[0])
	}
}

// prodKernel is prod over every dim by aclnnProd, or over one by
// aclnnProdDim; both take out's dtype as their dtype argument.
func prodKernel(c *kernel.Call) error {
	in, out := &c.In[0], &c.Out[0]
	switch {
	case len(c.Dims) == 1:
		a := dimAttrs(c.Dims[0], c.KeepDim)
		a.DType = aclDType[out.DType]
		return launch(c, npushim.ProdDim, a, out, in)
	case len(c.Dims) == 0 && len(in.Shape) == 1:
		a := dimAttrs(0, c.KeepDim)
		a.DType = aclDType[out.DType]
		return launch(c, npushim.ProdDim, a, out, in)
	case len(c.Dims) == 0 && (!c.KeepDim || len(in.Shape) == 0):
		return launch(c, npushim.Prod, &npushim.Attrs{DType: aclDType[out.DType]}, out, in)
	}
	return kernel.Errorf(kernel.ErrNotImplemented, "prod over several dims is not on the NPU")
}

// sortKernel is sort by aclnnSort (Mode 1: stable).
func sortKernel(c *kernel.Call) error {
	a := dimAttrs(c.Dim, c.KeepDim) // KeepDim: descending
	if c.Mode == 1 {
		a.I[1] = 1
	}
	return launch(c, npushim.Sort, a, &c.Out[0], &c.Out[1], &c.In[0])
}

// topkKernel is topk by aclnnTopk.
func topkKernel(c *kernel.Call) error {
	a := &npushim.Attrs{I: [npushim.MaxDims]int64{int64(c.Ints[0]), int64(c.Dim)}}
	if c.KeepDim { // largest
		a.I[2] = 1
	}
	if c.Mode == 1 { // sorted
		a.I[3] = 1
	}
	return launch(c, npushim.Topk, a, &c.Out[0], &c.Out[1], &c.In[0])
}

// catKernel is cat by aclnnCat. The 1-D empty inputs PyTorch skips are
// left out (aclnnCat takes tensors of one rank); the rest must promote to
// out's dtype (aclnnCat casts each input to their promoted dtype, then to
// out's: one cast, as PyTorch's, only then). More inputs than one call
// takes are concatenated into slices of the output, when all have out's
// dtype.
func catKernel(c *kernel.Call) error {
	out := &c.Out[0]
	var in []*kernel.Operand
	for i := range c.In {
		if o := &c.In[i]; !(len(o.Shape) == 1 && o.Shape[0] == 0) {
			in = append(in, o)
		}
	}
	if len(in) == 0 || out.Numel() == 0 {
		return nil
	}
	p := in[0].DType
	for _, o := range in[1:] {
		p = dtype.Promote(p, o.DType)
	}
	if p != out.DType {
		return kernel.Errorf(kernel.ErrNotImplemented, "aclnnCat casts to %s first, not to %s", p.Name(), out.DType.Name())
	}
	const per = npushim.MaxTensors - 1
	if len(in) > per && slices.ContainsFunc(in, func(o *kernel.Operand) bool { return o.DType != out.DType }) {
		return kernel.Errorf(kernel.ErrNotImplemented, "cat of more than %d tensors of several dtypes is not on the NPU", per)
	}
	for i := range in {
		if err := checkDTypes(npushim.Cat, append([]*kernel.Operand{out}, in[i])); err != nil {
			return err
		}
	}
	a := &npushim.Attrs{I: [npushim.MaxDims]int64{int64(c.Dim)}}
	at := 0
	for start := 0; start < len(in); start += per {
		chunk := in[start:min(start+per, len(in))]
		view := *out
		if len(chunk) < len(in) { // this chunk's slice of the output
			n := 0
			for _, o := range chunk {
				n += o.Shape[c.Dim]
			}
			view.Shape = slices.Clone(out.Shape)
			view.Shape[c.Dim] = n
			view.Offset += at * out.Strides[c.Dim]
			at += n
		}
		if err := launch(c, npushim.Cat, a, append([]*kernel.Operand{&view}, chunk...)...); err != nil {
			return err
		}
	}
	return nil
}

// flipKernel is flip by aclnnFlip.
func flipKernel(c *kernel.Call) error {
	if len(c.Dims) > npushim.MaxDims {
		return kernel.Errorf(kernel.ErrNotImplemented, "flip of more than %d dims is not on the NPU", npushim.MaxDims)
	}
	a := &npushim.Attrs{NI: int32(len(c.Dims))}
	for i, d := range c.Dims {
		a.I[i] = int64(d)
	}
	return launch(c, npushim.Flip, a, &c.Out[0], &c.In[0])
}

// launchCheck is a launch for checkAll to check: op and its operands.
type launchCheck struct {
	op  int
	ops []*kernel.Operand
}

// checkAll checks every launch of a kernel that makes several, before the
// first: a call must not decline after it wrote an output.
func checkAll(cs ...launchCheck) error {
	for _, lc := range cs {
		if err := checkDTypes(lc.op, lc.ops); err != nil {
			return err
		}
	}
	return nil
}

// temporary is a contiguous device operand of dtype d and shape on the
// call's device, for a kernel's intermediate result; release it after its
// last launch (the allocator reuses it on the stream only after that).
func temporary(c *kernel.Call, d dtype.DType, shape ...int) (kernel.Operand, error) {
	dev := c.Device.Index
	if c.Device.Type != device.NPU {
		dev = deviceOf([]*kernel.Operand{&c.In[0]})
	}
	m, err := Allocate(dev, kernel.Numel(shape)*d.ItemSize())
	if err != nil {
		return kernel.Operand{}, err
	}
	return kernel.Operand{Mem: m, DType: d, Shape: shape, Strides: kernel.ContiguousStrides(shape, make([]int, len(shape)))}, nil
}

// batchNormKernel is native_batch_norm by aclnnBatchNorm. Training, the op
// writes the batch's mean and, on Atlas A2/A3 and the chips before, its
// (biased) variance into saveInvstd (hicann/ops-nn
// norm/batch_norm_v3/docs/aclnnBatchNorm.md), which is Out[3] here; the
// invstd is then (var + eps)^-0.5 by aclnnAdds and aclnnPowTensorScalar.
// The running stats are the caller's (pkg/torch updates them), so none is
// passed. Empty and 5-D inputs decline (5-D needs format NCDHW, the shim
// passes ND).
func batchNormKernel(c *kernel.Call) error {
	x, w, b := &c.In[0], &c.In[1], &c.In[2]
	if x.Numel() == 0 || len(x.Shape) == 5 || len(w.Shape) != 1 || len(b.Shape) != 1 ||
		c.Mode != 1 && (len(c.In[3].Shape) != 1 || len(c.In[4].Shape) != 1) {
		return kernel.Errorf(kernel.ErrNotImplemented, "native_batch_norm of this input is not on the NPU")
	}
	eps := c.Scalars[0].Float()
	a := &npushim.Attrs{F: [2]float64{0, eps}}
	if c.Mode != 1 {
		return launch(c, npushim.BatchNorm, a, &c.Out[0], nil, nil, x, w, b, &c.In[3], &c.In[4])
	}
	y, mean, invstd, v := &c.Out[0], &c.Out[1], &c.Out[2], &c.Out[3]
	bn := []*kernel.Operand{y, mean, v, x, w, b, nil, nil}
	if err := checkAll(launchCheck{npushim.BatchNorm, bn}, launchCheck{npushim.Adds, []*kernel.Operand{invstd, v}},
		launchCheck{npushim.PowScalar, []*kernel.Operand{invstd, invstd}}); err != nil {
		return err
	}
	a.Flag = 1
	if err := launch(c, npushim.BatchNorm, a, bn...); err != nil {
		return err
	}
	if err := launch(c, npushim.Adds, scalars(kernel.FloatScalar(eps), kernel.IntScalar(1)), invstd, v); err != nil {
		return err
	}
	return launch(c, npushim.PowScalar, scalars(kernel.FloatScalar(-0.5)), invstd, invstd)
}

// batchNormBackwardKernel is native_batch_norm_backward by
// aclnnBatchNormBackward. It gets the invstd of each channel (In[4]); the
// op takes the variance (its formula uses sqrt(var + eps), and training the
// saveInvstd aclnnBatchNorm wrote, a variance on Atlas A2/A3: see
// batchNormKernel): so it gets invstd^-2 with eps 0, which gives back the
// invstd. Training, that is saveInvstd with the batch mean as saveMean;
// otherwise runningVar with the running mean.
func batchNormBackwardKernel(c *kernel.Call) error {
	g, x, w, m, s := &c.In[0], &c.In[1], &c.In[2], &c.In[3], &c.In[4]
	if x.Numel() == 0 || len(x.Shape) == 5 || len(w.Shape) != 1 || len(m.Shape) != 1 || len(s.Shape) != 1 {
		return kernel.Errorf(kernel.ErrNotImplemented, "native_batch_norm_backward of this input is not on the NPU")
	}
	v, err := temporary(c, s.DType, s.Numel())
	if err != nil {
		return err
	}
	defer v.Mem.Release()
	ops := []*kernel.Operand{&c.Out[0], &c.Out[1], &c.Out[2], g, x, w, m, &v, nil, nil}
	a := &npushim.Attrs{Ext: [npushim.Ext]int64{1, 1, 1}} // outputMask
	if c.Mode == 1 {
		ops[6], ops[7], ops[8], ops[9] = nil, nil, m, &v
		a.Flag = 1
	}
	if err := checkAll(launchCheck{npushim.PowScalar, []*kernel.Operand{&v, s}},
		launchCheck{npushim.BatchNormBackward, ops}); err != nil {
		return err
	}
	if err := launch(c, npushim.PowScalar, scalars(kernel.FloatScalar(-2)), &v, s); err != nil {
		return err
	}
	return launch(c, npushim.BatchNormBackward, a, ops...)
}

// convAttrs are the attributes of aclnnConvolution and
// aclnnConvolutionBackward for a 2-D convolution call of dtype d (c.Ints:
// stride, padding top, left, bottom, right, dilation, groups): ni 2,
// stride, padding and dilation in Ext, groups and cubeMathType in I. The
// ops take one padding per dim (asymmetric padding declines), at most 255
// (hicann/ops-nn conv/convolution_forward/docs/aclnnConvolution.md). Their
// cubeMathType is matmul's (cubeMathType: 0 on Atlas A2/A3, 2 before, or
// MINDTORCH_NPU_CUBE_MATH_TYPE); FLOAT32 with 0 (KEEP_DTYPE) is not
// supported (the doc's constraints), and computing it in HF32 (1 or 3, the
// default of torch_npu's torch.npu.conv.allow_hf32) would give other values
// than PyTorch's: it declines, so float32 convolutions run on the host
// unless MINDTORCH_NPU_CUBE_MATH_TYPE asks for HF32 (1 or 3) or, on the
// older chips, float16 (2, the default there).
func convAttrs(c *kernel.Call, d dtype.DType) (*npushim.Attrs, error) {
	v := c.Ints
	if len(v) < 9 {
		return nil, kernel.Errorf(kernel.ErrArgument, "%s: expected at least 9 integer attributes, got %d", c.Op, len(v))
	}
	if v[2] != v[4] || v[3] != v[5] || v[2] > 255 || v[3] > 255 {
		return nil, kernel.Errorf(kernel.ErrNotImplemented, "aclnnConvolution takes one padding of at most 255 per dim, not %v", v[2:6])
	}
	cube := cubeMathType()
	switch {
	case d == dtype.Float32 && cube == cubeKeepDType:
		return nil, kernel.Errorf(kernel.ErrNotImplemented, "aclnnConvolution takes no float32 with cubeMathType 0 (KEEP_DTYPE); "+
			"MINDTORCH_NPU_CUBE_MATH_TYPE=1 or 3 runs it in HF32")
	case d == dtype.BFloat16 && cube == cubeUseFP16, cube > 3, cube == 3 && chipOf(state.soc) == chipA1:
		return nil, kernel.Errorf(kernel.ErrNotImplemented, "aclnnConvolution takes no %s with cubeMathType %d on %s", d.Name(), cube, socName())
	}
	a := &npushim.Attrs{NI: 2, I: [npushim.MaxDims]int64{int64(v[8]), cube}}
	a.Ext[0], a.Ext[1] = int64(v[0]), int64(v[1]) // stride
	a.Ext[3], a.Ext[4] = int64(v[2]), int64(v[3]) // padding
	a.Ext[6], a.Ext[7] = int64(v[6]), int64(v[7]) // dilation; Ext[9..11) output padding: 0
	return a, nil
}

// convKernel is the 2-D convolution by aclnnConvolution (not transposed),
// with its bias when the call has one.
func convKernel(c *kernel.Call) error {
	a, err := convAttrs(c, c.In[0].DType)
	if err != nil {
		return err
	}
	var bias *kernel.Operand
	if len(c.In) > 2 {
		bias = &c.In[2]
	}
	return launch(c, npushim.Convolution, a, &c.Out[0], &c.In[0], &c.In[1], bias)
}

// convBackwardKernel is the gradient of a 2-D convolution with respect to
// its input (In: grad_output, weight) or its weight (In: grad_output,
// input), by aclnnConvolutionBackward with that one gradient in its
// outputMask. The op takes the input and the weight of the forward for
// their shapes too: the one a call lacks is given as its gradient (the
// output, of that shape and dtype), which the op does not read when it does
// not compute that gradient (MegEngine's Ascend backend passes such a
// "fake input" the same way).
func convBackwardKernel(c *kernel.Call) error {
	g, out := &c.In[0], &c.Out[0]
	a, err := convAttrs(c, g.DType)
	if err != nil {
		return err
	}
	a.Ext[15] = -1 // no biasSizes
	if c.Op == kernel.OpConv2dBackwardInput {
		a.Ext[12] = 1
		return launch(c, npushim.ConvolutionBackward, a, out, nil, nil, g, out, &c.In[1])
	}
	a.Ext[13] = 1
	return launch(c, npushim.ConvolutionBackward, a, nil, out, nil, g, &c.In[1], out)
}
