package npu

import (
	"strings"

	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/backends/meta"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// linalg_svd by aclnnSvd(input, fullMatrices, computeUV, sigma, u, v)
// (M: math/svd/op_host/op_api/aclnn_svd.cpp, math/svd/docs/aclnnSvd.md;
// docs/npu-ops.md, "SVD"). CANN's v is V, input = U diag(sigma) V^T, as
// Ascend/op-plugin's op_api _linalg_svd_out reads it (it passes
// Vh.transpose(-1, -2)): the call passes Vh's transposed view. The op is an
// AICPU task on Atlas A2/A3 only.

// svdDTypes are aclnnSvd's DTYPE_SUPPORT_LIST without its complex dtypes,
// which MindTorch lacks: one dtype for the four tensors.
const svdDTypes = f32 | f64

func init() {
	kernel.Register(kernel.OpSvd, device.NPU, svdKernel)
}

// svdOptional reports whether name is aclnnSvd, which is optional: a CANN
// without it runs linalg_svd on the host (ENOSYM declines the call).
func svdOptional(name string) bool { return name == opRules[npushim.Svd].name }

// svdChip declines the SoCs aclnnSvd.md does not list: the Atlas training
// and inference chips (chipA1) and Ascend 950 (Ascend910_95*, Ascend950*).
func svdChip() error {
	soc := socName()
	if chipOf(soc) == chipA1 || strings.HasPrefix(soc, "Ascend910_95") || strings.HasPrefix(soc, "Ascend950") {
		return kernel.Errorf(kernel.ErrNotImplemented, "aclnnSvd is only on Atlas A2/A3, not on %s", soc)
	}
	return nil
}

// svdKernel is linalg_svd by aclnnSvd for float32 and float64. Out holds
// U, S and Vh (S alone with kernel.SvdValuesOnly); v is Vh's transposed
// view, which CANN writes through (its ViewCopy takes any strides). The op
// checks u's and v's shapes even when computeUV is false, so a values-only
// call passes temporaries of the reduced shapes, which it leaves untouched.
// Declined (the host route runs them): inputs with a NaN or an infinity
// (svdFinite); empty matrices (the doc: no empty tensors; its op_api
// returns without writing, where PyTorch gives identities); other dtypes
// (float16 and bfloat16: the host's error, as PyTorch's); SoCs without
// the op.
func svdKernel(c *kernel.Call) error {
	in := &c.In[0]
	if in.DType != dtype.Float32 && in.DType != dtype.Float64 {
		return kernel.Errorf(kernel.ErrNotImplemented, "linalg_svd of %s is not on the NPU: aclnnSvd takes FLOAT and DOUBLE",
			in.DType.Name())
	}
	batch, m, n, k := meta.SvdDims(c)
	if k == 0 || kernel.Numel(batch) == 0 {
		return kernel.Errorf(kernel.ErrNotImplemented, "linalg_svd of an empty %v tensor is not on the NPU: aclnnSvd takes none", in.Shape)
	}
	if err := svdChip(); err != nil {
		return err
	}
	valuesOnly := c.Mode&kernel.SvdValuesOnly != 0
	if err := checkAll(launchCheck{npushim.Svd, svdOperands(c, batch, m, n, k)}); err != nil {
		return err
	}
	if err := svdFinite(c); err != nil {
		return err
	}
	a := &npushim.Attrs{}
	if c.Mode&kernel.SvdFull != 0 && !valuesOnly {
		a.Flag = 1
	}
	if valuesOnly {
		return svdValues(c, a, batch, m, n, k)
	}
	a.I[0] = 1
	v := transposed(&c.Out[2])
	return launch(c, npushim.Svd, a, &c.Out[1], &c.Out[0], &v, in)
}

// svdFinite declines an input with a NaN or an infinity, which PyTorch
// answers with an error (a NaN) or NaN singular values (an infinity) and
// CANN's doc does not specify: the host route gives PyTorch's. The check
// counts the finite elements (aclnnIsFinite, aclnnReduceSum, read back).
func svdFinite(c *kernel.Call) error {
	in := &c.In[0]
	mask := kernel.Operand{DType: dtype.Bool, Shape: in.Shape}
	cnt := kernel.Operand{DType: dtype.Int64}
	if err := checkAll(launchCheck{npushim.IsFinite, []*kernel.Operand{&mask, in}},
		launchCheck{npushim.ReduceSum, []*kernel.Operand{&cnt, &mask}}); err != nil {
		return err
	}
	mask, err := temporary(c, dtype.Bool, in.Shape...)
	if err != nil {
		return err
	}
	defer mask.Mem.Release()
	if err := launch(c, npushim.IsFinite, nil, &mask, in); err != nil {
		return err
	}
	n, err := countOf(c, &mask)
	if err != nil {
		return err
	}
	if n != in.Numel() {
		return kernel.Errorf(kernel.ErrNotImplemented, "linalg_svd of a matrix with NaN or infinite values is not on the NPU")
	}
	return nil
}

// svdValues is the values-only call: computeUV false, u and v temporaries
// of shapes (..., m, k) and (..., n, k), released once the launch is queued
// (the stream orders their next user after it).
func svdValues(c *kernel.Call, a *npushim.Attrs, batch []int, m, n, k int) error {
	in := &c.In[0]
	shape := func(r int) []int { return append(append([]int{}, batch...), r, k) }
	u, err := temporary(c, in.DType, shape(m)...)
	if err != nil {
		return err
	}
	defer u.Mem.Release()
	v, err := temporary(c, in.DType, shape(n)...)
	if err != nil {
		return err
	}
	defer v.Mem.Release()
	return launch(c, npushim.Svd, a, &c.Out[0], &u, &v, in)
}

// svdOperands are the operands of c's aclnnSvd call for the check of
// their dtypes and dims (shapes only, no memory).
func svdOperands(c *kernel.Call, batch []int, m, n, k int) []*kernel.Operand {
	in := &c.In[0]
	if c.Mode&kernel.SvdValuesOnly == 0 {
		v := transposed(&c.Out[2])
		return []*kernel.Operand{&c.Out[1], &c.Out[0], &v, in}
	}
	shape := func(r int) []int { return append(append([]int{}, batch...), r, k) }
	return []*kernel.Operand{&c.Out[0], {DType: in.DType, Shape: shape(m)}, {DType: in.DType, Shape: shape(n)}, in}
}

// transposed is o with its last two dims swapped (a view of its memory).
func transposed(o *kernel.Operand) kernel.Operand {
	t := *o
	nd := len(o.Shape)
	t.Shape = append([]int{}, o.Shape...)
	t.Strides = append([]int{}, o.Strides...)
	t.Shape[nd-2], t.Shape[nd-1] = t.Shape[nd-1], t.Shape[nd-2]
	t.Strides[nd-2], t.Strides[nd-1] = t.Strides[nd-1], t.Strides[nd-2]
	return t
}
