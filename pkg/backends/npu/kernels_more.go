package npu

import (
	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// The more ops: dot, cumprod, searchsorted, and count_nonzero, nonzero and
// masked_select, whose outputs' sizes depend on the data; round with
// decimals=0. Each runs its ACLNN op (prototypes, dtypes and sources in
// docs/npu-ops.md, "More ops"), or declines (ErrNotImplemented) a form the
// op does not take or computes otherwise than PyTorch, which the dispatcher
// then runs on the host. docs/npu-ops.md lists the ops left on the host
// (norm, kthvalue, round with decimals) and why; the average pools are
// kernels_pool.go's.

// Dtype sets of the more ops' rows in opRules (dtypes.go).
const (
	dotDTypes     = bf16 | f16 | f32 | i8 | i32 | u8                   // M: math/dot/op_api/aclnn_dot.cpp
	cumprodDTypes = f32 | f16 | bf16 | f64 | i8 | i16 | i32 | i64 | u8 // M: math/cumprod/op_api/aclnn_cumprod.cpp
	searchDTypes  = f64 | f32 | f16 | u8 | i8 | i16 | i32 | i64        // M: math/search_sorted/op_api/aclnn_searchsorted.cpp
)

// moreA2Only are the ops whose docs list Atlas A2/A3 and no older chip
// (aclnnCumprod&aclnnInplaceCumprod.md), or not the Atlas inference chips,
// which share chipA1 with the first Ascend910s here (aclnnSearchSorted.md):
// declined on all of chipA1. aclnnDot takes the older chips (without
// BFLOAT16: math/dot/op_api/aclnn_dot.cpp ASCEND910_DTYPE_DTYPE_SUPPORT_LIST).
var moreA2Only = map[int]bool{npushim.Cumprod: true, npushim.SearchSorted: true}

// moreOptional reports whether name is one of this file's ACLNN ops: each
// is optional (a CANN without it runs the op on the host, ENOSYM declining
// the call), so SymbolsOK does not require it.
func moreOptional(name string) bool {
	for op := npushim.Dot; op <= npushim.MaskedSelect; op++ {
		if opRules[op].name == name {
			return true
		}
	}
	return false
}

// moreLaunch is launch for the ops of this file: it declines an op the SoC
// lacks first.
func moreLaunch(c *kernel.Call, op int, a *npushim.Attrs, ops ...*kernel.Operand) error {
	if err := moreChip(op); err != nil {
		return err
	}
	return launch(c, op, a, ops...)
}

// moreChip declines op on a chip its doc does not list.
func moreChip(op int) error {
	if moreA2Only[op] && chipOf(state.soc) == chipA1 {
		return kernel.Errorf(kernel.ErrNotImplemented, "%s is only on Atlas A2/A3 here, not on %s", opRules[op].name, socName())
	}
	return nil
}

func init() {
	kernel.Register(kernel.OpDot, device.NPU, dotKernel)
	kernel.Register(kernel.OpCumprod, device.NPU, cumprodKernel)
	kernel.Register(kernel.OpSearchsorted, device.NPU, searchsortedKernel)
	kernel.Register(kernel.OpCountNonzero, device.NPU, countNonzeroKernel)
	kernel.Register(kernel.OpNonzero, device.NPU, nonzeroKernel)
	kernel.Register(kernel.OpMaskedSelect, device.NPU, maskedSelectKernel)
	kernel.Register(kernel.OpRoundDecimals, device.NPU, roundDecimalsKernel)
}

// dotKernel is dot by aclnnDot: two 1-D tensors of one dtype into a 0-dim
// one (empty inputs give 0, math/dot/op_api/aclnn_dot.cpp). Integer inputs
// decline: the kernel's integer accumulation is not documented, and
// PyTorch's wraps in the dtype.
func dotKernel(c *kernel.Call) error {
	if !c.In[0].DType.IsFloatingPoint() {
		return kernel.Errorf(kernel.ErrNotImplemented, "aclnnDot of %s is not used: its integer accumulation is not documented",
			c.In[0].DType.Name())
	}
	return moreLaunch(c, npushim.Dot, nil, &c.Out[0], &c.In[0], &c.In[1])
}

// cumprodKernel is cumprod by aclnnCumprod, whose dtype argument is out's
// (the input is cast to it first, as PyTorch's dtype=; a 0-dim input takes
// dim 0 or -1: math/cumprod/op_api/aclnn_cumprod.cpp).
func cumprodKernel(c *kernel.Call) error {
	a := &npushim.Attrs{I: [npushim.MaxDims]int64{int64(c.Dim)}, DType: aclDType[c.Out[0].DType]}
	return moreLaunch(c, npushim.Cumprod, a, &c.Out[0], &c.In[0])
}

// searchsortedKernel is searchsorted by aclnnSearchSorted without a sorter
// (KeepDim: right; out int32 or int64, outInt32 says which). Empty and
// 0-dim operands decline.
func searchsortedKernel(c *kernel.Call) error {
	seq, v, out := &c.In[0], &c.In[1], &c.Out[0]
	if seq.Numel() == 0 || v.Numel() == 0 || len(v.Shape) == 0 {
		return kernel.Errorf(kernel.ErrNotImplemented, "searchsorted of empty or 0-dim tensors is not on the NPU")
	}
	a := &npushim.Attrs{}
	if c.KeepDim {
		a.Flag = 1
	}
	if out.DType == dtype.Int32 {
		a.I[0] = 1
	}
	return moreLaunch(c, npushim.SearchSorted, a, out, seq, v)
}

// nonzeroMask writes self != 0 (NaN is nonzero, -0.0 is not, as in
// PyTorch) into a new bool tensor by aclnnNeScalar; release it after its
// last launch.
func nonzeroMask(c *kernel.Call, self *kernel.Operand) (kernel.Operand, error) {
	m, err := temporary(c, dtype.Bool, self.Shape...)
	if err != nil {
		return m, err
	}
	if err := launch(c, npushim.NeScalar, scalars(kernel.IntScalar(0)), &m, self); err != nil {
		m.Mem.Release()
		return m, err
	}
	return m, nil
}

// allDims names every dim of shape for aclnnReduceSum (none for a 0-dim
// shape, which the op reads as every dim).
func allDims(a *npushim.Attrs, shape []int) {
	for d := range shape {
		a.I[d] = int64(d)
	}
	a.NI = int32(len(shape))
}

// countNonzeroKernel is count_nonzero: self != 0 by aclnnNeScalar into a
// bool tensor, summed over c.Dims (every dim when none) into out's int64 by
// aclnnReduceSum. Empty inputs decline.
func countNonzeroKernel(c *kernel.Call) error {
	in, out := &c.In[0], &c.Out[0]
	if in.Numel() == 0 || len(in.Shape) > npushim.MaxDims {
		return kernel.Errorf(kernel.ErrNotImplemented, "count_nonzero of this tensor is not on the NPU")
	}
	mask := kernel.Operand{DType: dtype.Bool, Shape: in.Shape}
	if err := checkAll(launchCheck{npushim.NeScalar, []*kernel.Operand{&mask, in}},
		launchCheck{npushim.ReduceSum, []*kernel.Operand{out, &mask}}); err != nil {
		return err
	}
	m, err := nonzeroMask(c, in)
	if err != nil {
		return err
	}
	defer m.Mem.Release()
	a := &npushim.Attrs{DType: aclDType[out.DType]}
	if len(c.Dims) == 0 {
		allDims(a, in.Shape)
	} else {
		for i, d := range c.Dims {
			a.I[i] = int64(d)
		}
		a.NI = int32(len(c.Dims))
	}
	return launch(c, npushim.ReduceSum, a, out, &m)
}

// countOf sums the bool operand m (every dim) into an int64 on the device
// by aclnnReduceSum and reads it back (one transfer, after the device is
// done).
func countOf(c *kernel.Call, m *kernel.Operand) (int, error) {
	n, err := temporary(c, dtype.Int64)
	if err != nil {
		return 0, err
	}
	defer n.Mem.Release()
	a := &npushim.Attrs{DType: aclDType[dtype.Int64]}
	allDims(a, m.Shape)
	if err := launch(c, npushim.ReduceSum, a, &n, m); err != nil {
		return 0, err
	}
	v, err := readIndex(&n)
	if err != nil {
		return 0, err
	}
	return int(v[0]), nil
}

// dynamicOut binds the Dynamic output o to new device memory of shape,
// contiguous, and copies the first elements of the contiguous operand from
// into it by aclnnInplaceCopy (none when the shape is empty).
func dynamicOut(c *kernel.Call, o *kernel.Operand, from *kernel.Operand, shape ...int) error {
	dev := deviceOf([]*kernel.Operand{&c.In[0]})
	m, err := Allocate(dev, kernel.Numel(shape)*o.DType.ItemSize())
	if err != nil {
		return err
	}
	o.Shape = append(c.NewInts(len(shape))[:0], shape...)
	o.Strides = kernel.ContiguousStrides(o.Shape, c.NewInts(len(shape)))
	o.Offset = 0
	o.Bind(m)
	if kernel.Numel(shape) == 0 {
		return nil
	}
	head := *from // the first elements of from, in o's shape
	head.Shape, head.Strides = o.Shape, o.Strides
	if err := launch(c, npushim.Copy, nil, o, &head); err != nil {
		m.Release()
		o.Mem = nil
		return err
	}
	return nil
}

// nonzeroKernel is nonzero by aclnnNonzero: its output must be allocated
// at its largest size, [numel, ndim] (index/non_zero/docs/aclnnNonzero.md),
// and its first rows hold the coordinates of the nonzero elements in
// row-major order. Their count is computed first (aclnnNeScalar and
// aclnnReduceSum, read back), the output allocated at [count, ndim] and the
// rows copied into it. 0-dim and empty inputs decline.
func nonzeroKernel(c *kernel.Call) error {
	in := &c.In[0]
	n, nd := in.Numel(), len(in.Shape)
	if nd == 0 || n == 0 || nd > npushim.MaxDims {
		return kernel.Errorf(kernel.ErrNotImplemented, "nonzero of a 0-dim or empty tensor is not on the NPU")
	}
	all := kernel.Operand{DType: dtype.Int64, Shape: []int{n, nd}}
	mask := kernel.Operand{DType: dtype.Bool, Shape: in.Shape}
	cnt := kernel.Operand{DType: dtype.Int64}
	if err := checkAll(launchCheck{npushim.NeScalar, []*kernel.Operand{&mask, in}},
		launchCheck{npushim.ReduceSum, []*kernel.Operand{&cnt, &mask}}, launchCheck{npushim.Nonzero, []*kernel.Operand{&all, in}},
		launchCheck{npushim.Copy, []*kernel.Operand{&all, &all}}); err != nil {
		return err
	}
	m, err := nonzeroMask(c, in)
	if err != nil {
		return err
	}
	count, err := countOf(c, &m)
	m.Mem.Release()
	if err != nil {
		return err
	}
	all, err = temporary(c, dtype.Int64, n, nd)
	if err != nil {
		return err
	}
	defer all.Mem.Release()
	if err := launch(c, npushim.Nonzero, nil, &all, in); err != nil {
		return err
	}
	c.Out[0].DType = dtype.Int64
	return dynamicOut(c, &c.Out[0], &all, count, nd)
}

// maskedSelectKernel is masked_select by aclnnMaskedSelect, whose output
// is 1-D of the broadcast shape's size, its first elements the selected
// ones in row-major order (conversion/masked_select_v3/docs/aclnnMaskedSelect.md).
// Their count is the sum of the mask broadcast to that shape (a view with
// zero strides, by aclnnReduceSum), read back; the output is allocated at
// that count and the elements copied into it. Empty shapes decline.
func maskedSelectKernel(c *kernel.Call) error {
	self, mask := &c.In[0], &c.In[1]
	if mask.DType != dtype.Bool { // the count below sums the mask's values
		return kernel.Errorf(kernel.ErrNotImplemented, "masked_select with a %s mask is not on the NPU", mask.DType.Name())
	}
	shape, err := kernel.BroadcastShapes(self.Shape, mask.Shape)
	if err != nil {
		return err
	}
	n := kernel.Numel(shape)
	if n == 0 || len(shape) > npushim.MaxDims {
		return kernel.Errorf(kernel.ErrNotImplemented, "masked_select of an empty tensor is not on the NPU")
	}
	wide := *mask // the mask broadcast to shape
	wide.Shape = shape
	wide.Strides = make([]int, len(shape))
	for i, j := len(shape)-1, len(mask.Shape)-1; j >= 0; i, j = i-1, j-1 {
		if mask.Shape[j] != 1 {
			wide.Strides[i] = mask.Strides[j]
		}
	}
	all := kernel.Operand{DType: self.DType, Shape: []int{n}}
	cnt := kernel.Operand{DType: dtype.Int64}
	if err := checkAll(launchCheck{npushim.ReduceSum, []*kernel.Operand{&cnt, &wide}},
		launchCheck{npushim.MaskedSelect, []*kernel.Operand{&all, self, mask}},
		launchCheck{npushim.Copy, []*kernel.Operand{&all, &all}}); err != nil {
		return err
	}
	count, err := countOf(c, &wide)
	if err != nil {
		return err
	}
	all, err = temporary(c, self.DType, n)
	if err != nil {
		return err
	}
	defer all.Mem.Release()
	if err := launch(c, npushim.MaskedSelect, nil, &all, self, mask); err != nil {
		return err
	}
	c.Out[0].DType = self.DType
	return dynamicOut(c, &c.Out[0], &all, count)
}

// roundDecimalsKernel is round with decimals = 0 by aclnnRound (what
// PyTorch runs then). Other decimals decline: aclnnRoundDecimals computes
// x * 10^n in FLOAT32 (FLOAT16 and BFLOAT16 inputs cast up), which its doc
// says loses precision for |x| >= 347000, while PyTorch computes in the
// dtype's compute type (see docs/npu-ops.md).
func roundDecimalsKernel(c *kernel.Call) error {
	if c.Scalars[0].Float() != 1 || c.Scalars[1].Float() != 0 {
		return kernel.Errorf(kernel.ErrNotImplemented, "round with decimals is not on the NPU: aclnnRoundDecimals "+
			"does not compute PyTorch's nearbyint(x * 10^n) / 10^n for every input")
	}
	return launch(c, npushim.Round, nil, &c.Out[0], &c.In[0])
}
