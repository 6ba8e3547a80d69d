package npu

import (
	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// The average pools: avg_pool2d and adaptive_avg_pool2d with their
// gradients, each one ACLNN call (prototypes, dtypes, rules and sources in
// docs/npu-ops.md, "Pool ops") over (N, C, H, W) operands in format NCHW
// or unbatched (C, H, W) ones in NCL (the shim's tensor_format). A form the
// op does not take, or would compute in another precision than PyTorch,
// declines (ErrNotImplemented): the dispatcher then runs the pool's
// decomposition (pkg/torch/decompose_pool.go) or the CPU kernel on the
// host. The max pools stay decomposed (docs/npu-ops.md: aclnnMaxPool2dWithIndices
// takes no NaN or -Inf on Atlas A2/A3).
//
// op-plugin calls the same ops: aclnnAvgPool2d(self, kernel, stride,
// padding, ceil_mode, count_include_pad, divisor_override or 0,
// get_cube_math_type(false), result) and its backward with the same
// attributes (Ascend/op-plugin op_plugin/ops/opapi/AvgPool2dKernelNpuOpApi.cpp,
// AvgPool2dBackwardKernelNpuOpApi.cpp), aclnnAdaptiveAvgPool2d(self,
// output_size, result) (AdaptiveAvgPool2dKernelNpuOpApi.cpp) and
// aclnnAdaptiveAvgPool2dBackward(grad_output, self, out).

func init() {
	kernel.Register(kernel.OpAvgPool2d, device.NPU, avgPoolKernel)
	kernel.Register(kernel.OpAvgPool2dBackward, device.NPU, avgPoolKernel)
	kernel.Register(kernel.OpAdaptiveAvgPool2d, device.NPU, adaptiveAvgPoolKernel)
	kernel.Register(kernel.OpAdaptiveAvgPool2dBackward, device.NPU, adaptiveAvgPoolKernel)
}

// poolDTypes are the dtypes of the four ops: FLOAT, FLOAT16 and BFLOAT16
// (BFLOAT16 on Atlas A2/A3 only, as opRule.allows drops it elsewhere):
// N: pooling/avg_pool3_d/op_api/aclnn_avgpool2d.cpp CheckDtypeValid,
// pooling/avg_pool3_d_grad/op_api/aclnn_avgpool2d_backward.cpp
// GetDtypeSupportList, pooling/adaptive_avg_pool3d/docs/aclnnAdaptiveAvgPool2d.md,
// pooling/adaptive_avg_pool3d_grad/op_host/op_api/aclnn_adaptive_avg_pool2d_backward.cpp.
const poolDTypes = f32 | f16 | bf16

// poolOptional reports whether name is one of this file's ACLNN ops: each
// is optional (a CANN without it runs the pool by its decomposition,
// ENOSYM declining the call), so SymbolsOK does not require it.
func poolOptional(name string) bool {
	for op := npushim.AvgPool2d; op <= npushim.AdaptiveAvgPool2dBackward; op++ {
		if opRules[op].name == name {
			return true
		}
	}
	return false
}

// avgPoolMaxDivisor bounds divisorOverride in aclnnAvgPool2dBackward on the
// chips before Atlas A2, which have only its cube graph
// (aclnn_avgpool2d_backward.cpp CheckCubeSupport: "divisorOverride only
// support in [-255, 0) && (0, 255]").
const avgPoolMaxDivisor = 255

// avgPoolAttrs are the attributes of aclnnAvgPool2d and its backward for
// the call's Ints (kH, kW, sH, sW, pH, pW, ceil_mode, count_include_pad,
// has_divisor, divisor_override) and self's dtype d: kernel, stride and
// padding in Ext, ceilMode in Flag, countIncludePad, divisorOverride (0:
// none) and cubeMathType in I.
//
// cubeMathType is matmul's (cubeMathType: what torch_npu passes, 0 on Atlas
// A2/A3). Only 0 (KEEP_DTYPE) runs natively: with 1 or 2 the ops compute
// FLOAT32 in FLOAT16 on some of their graphs (or refuse it, 1 and 3 on A2/A3),
// and the backward's cube graph casts BFLOAT16 to FLOAT16 too
// (aclnn_avgpool2d.cpp ProcessDataTypeConvert, aclnn_avgpool2d_backward.cpp
// BuildCubeGraph). On the older chips the cube unit takes no FLOAT32 with 0
// (CheckCubeMathType), so float32 declines there.
func avgPoolAttrs(c *kernel.Call, d dtype.DType) (*npushim.Attrs, error) {
	v := c.Ints
	if len(v) != 10 {
		return nil, kernel.Errorf(kernel.ErrArgument, "%s: expected 10 integer attributes, got %d", c.Op, len(v))
	}
	cube, a1 := cubeMathType(), chipOf(state.soc) == chipA1
	switch {
	case cube != cubeKeepDType:
		return nil, kernel.Errorf(kernel.ErrNotImplemented, "%s with cubeMathType %d does not keep %s's precision on %s", c.Op, cube,
			d.Name(), socName())
	case a1 && d == dtype.Float32:
		return nil, kernel.Errorf(kernel.ErrNotImplemented, "the cube unit of %s takes no float32 with cubeMathType 0", socName())
	}
	a := &npushim.Attrs{}
	for i := range 6 { // kernel, stride, padding: H then W
		a.Ext[i] = int64(v[i])
	}
	if v[6] != 0 {
		a.Flag = 1
	}
	a.I[0] = int64(v[7])
	if v[8] != 0 {
		a.I[1] = int64(v[9])
	}
	a.I[2] = cube
	if c.Op == kernel.OpAvgPool2dBackward && a1 && (a.I[1] > avgPoolMaxDivisor || a.I[1] < -avgPoolMaxDivisor) {
		return nil, kernel.Errorf(kernel.ErrNotImplemented, "aclnnAvgPool2dBackward takes divisorOverride in [-255, 255] on %s, not %d",
			socName(), a.I[1])
	}
	return a, nil
}

// avgPoolKernel is avg_pool2d by aclnnAvgPool2d (out, self) and its
// gradient by aclnnAvgPool2dBackward (gradInput, gradOutput, self). An
// empty output (a batch of 0) needs no launch.
func avgPoolKernel(c *kernel.Call) error {
	op, ops := npushim.AvgPool2d, []*kernel.Operand{&c.Out[0], &c.In[0]}
	self := &c.In[0]
	if c.Op == kernel.OpAvgPool2dBackward {
		op, ops, self = npushim.AvgPool2dBackward, append(ops, &c.In[1]), &c.In[1]
	}
	a, err := avgPoolAttrs(c, self.DType)
	if err != nil {
		return err
	}
	if err := checkDTypes(op, ops); err != nil {
		return err
	}
	if c.Out[0].Numel() == 0 {
		return nil
	}
	return launch(c, op, a, ops...)
}

// adaptiveAvgPoolKernel is adaptive_avg_pool2d by aclnnAdaptiveAvgPool2d
// (out, self; outputSize in Ext) and its gradient by
// aclnnAdaptiveAvgPool2dBackward (out, gradOutput, self). The forward
// takes no output size of 0 (an empty output needs no launch); the
// backward of an empty gradOutput leaves its output unwritten
// (aclnn_adaptive_avg_pool2d_backward.cpp), where PyTorch's gradient is
// zeros: it declines.
func adaptiveAvgPoolKernel(c *kernel.Call) error {
	out := &c.Out[0]
	if c.Op == kernel.OpAdaptiveAvgPool2d {
		ops := []*kernel.Operand{out, &c.In[0]}
		if len(c.Ints) != 2 {
			return kernel.Errorf(kernel.ErrArgument, "%s: expected 2 integer attributes, got %d", c.Op, len(c.Ints))
		}
		if err := checkDTypes(npushim.AdaptiveAvgPool2d, ops); err != nil {
			return err
		}
		if out.Numel() == 0 {
			return nil
		}
		a := &npushim.Attrs{}
		a.Ext[0], a.Ext[1] = int64(c.Ints[0]), int64(c.Ints[1])
		return launch(c, npushim.AdaptiveAvgPool2d, a, ops...)
	}
	g := &c.In[0]
	ops := []*kernel.Operand{out, g, &c.In[1]}
	if err := checkDTypes(npushim.AdaptiveAvgPool2dBackward, ops); err != nil {
		return err
	}
	if out.Numel() == 0 {
		return nil
	}
	if g.Numel() == 0 {
		return kernel.Errorf(kernel.ErrNotImplemented, "aclnnAdaptiveAvgPool2dBackward leaves the gradient of an empty output unwritten")
	}
	return launch(c, npushim.AdaptiveAvgPool2dBackward, nil, ops...)
}
