package npu

import (
	"slices"

	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

// The fused norms: native_layer_norm by aclnnLayerNorm, its backward by
// aclnnLayerNormBackward, native_group_norm by aclnnGroupNorm and its
// backward by aclnnGroupNormBackward, one launch each (prototypes, dtypes,
// rules and sources in docs/npu-ops.md, "Norm ops"). Each op writes the
// mean and rstd = 1/sqrt(var + eps) (biased variance) of PyTorch's shapes:
// the input's shape with the normalised dims 1 for the layer norm (as
// op-plugin's LayerNormKernelNpuOpApi.cpp allocates them), [N, group] for
// the group norm. A form an op does not take declines (ErrNotImplemented)
// and the dispatcher runs the decomposition (pkg/torch/decompose_norm.go):
// RMS norm (Mode 1, aclnnRmsNorm is not used), float64, a group norm with
// eps <= 0, the backward of an empty group norm, the ops their docs do not
// list on a chip.

func init() {
	kernel.Register(kernel.OpLayerNorm, device.NPU, layerNormKernel)
	kernel.Register(kernel.OpLayerNormBackward, device.NPU, layerNormBackwardKernel)
	kernel.Register(kernel.OpGroupNorm, device.NPU, groupNormKernel)
	kernel.Register(kernel.OpGroupNormBackward, device.NPU, groupNormBackwardKernel)
}

// normOptional reports whether name is one of this file's ACLNN ops: each is
// optional (a CANN without it runs the norm by its decomposition, ENOSYM
// declining the call), so SymbolsOK does not require it.
func normOptional(name string) bool {
	for op := npushim.LayerNorm; op <= npushim.GroupNormBackward; op++ {
		if opRules[op].name == name {
			return true
		}
	}
	return false
}

// normLaunch is launch for the ops of this file: it declines an op on a chip
// its doc does not list first.
func normLaunch(c *kernel.Call, op int, a *npushim.Attrs, ops ...*kernel.Operand) error {
	if err := onThisChip(op); err != nil {
		return err
	}
	return launch(c, op, a, ops...)
}

// normalizedShape are the attributes holding the n trailing dims of x, the
// normalizedShape of aclnnLayerNorm and its backward, in I[0..n).
func normalizedShape(x *kernel.Operand, n int) (*npushim.Attrs, error) {
	if n < 1 || n > len(x.Shape) || n > npushim.MaxDims {
		return nil, kernel.Errorf(kernel.ErrNotImplemented, "aclnnLayerNorm takes 1 to %d normalised dims, not %d of %d",
			npushim.MaxDims, n, len(x.Shape))
	}
	a := &npushim.Attrs{NI: int32(n)}
	for i, d := range x.Shape[len(x.Shape)-n:] {
		a.I[i] = int64(d)
	}
	return a, nil
}

// layerNormKernel is native_layer_norm by aclnnLayerNorm over the Ints[0]
// trailing dims, with the weight and bias the call has (pkg/torch passes
// ones and zeros for PyTorch's None).
func layerNormKernel(c *kernel.Call) error {
	if c.Mode == 1 {
		return kernel.Errorf(kernel.ErrNotImplemented, "RMS norm is not run by aclnnLayerNorm")
	}
	x := &c.In[0]
	a, err := normalizedShape(x, c.Ints[0])
	if err != nil {
		return err
	}
	a.F[0] = c.Scalars[0].Float()
	return normLaunch(c, npushim.LayerNorm, a, &c.Out[0], &c.Out[1], &c.Out[2], x, &c.In[1], &c.In[2])
}

// layerNormBackwardKernel is native_layer_norm_backward by
// aclnnLayerNormBackward, every gradient asked for (no bias: the op needs
// it only for its dtype). The op takes a mean and rstd of one shape.
func layerNormBackwardKernel(c *kernel.Call) error {
	if c.Mode == 1 {
		return kernel.Errorf(kernel.ErrNotImplemented, "the RMS norm's backward is not run by aclnnLayerNormBackward")
	}
	g, x, mean, rstd, w := &c.In[0], &c.In[1], &c.In[2], &c.In[3], &c.In[4]
	if !slices.Equal(mean.Shape, rstd.Shape) {
		return kernel.Errorf(kernel.ErrNotImplemented, "aclnnLayerNormBackward needs a mean and rstd of one shape, got %s and %s",
			kernel.ShapeString(mean.Shape), kernel.ShapeString(rstd.Shape))
	}
	a, err := normalizedShape(x, c.Ints[0])
	if err != nil {
		return err
	}
	a.Ext[0], a.Ext[1], a.Ext[2] = 1, 1, 1 // outputMask
	return normLaunch(c, npushim.LayerNormBackward, a, &c.Out[0], &c.Out[1], &c.Out[2], g, x, mean, rstd, w, nil)
}

// groupAttrs are the attributes N, C, HxW and group of aclnnGroupNorm and
// its backward for the input x [N, C, ...] in groups.
func groupAttrs(x *kernel.Operand, groups int) *npushim.Attrs {
	return &npushim.Attrs{I: [npushim.MaxDims]int64{int64(x.Shape[0]), int64(x.Shape[1]), int64(kernel.Numel(x.Shape[2:])),
		int64(groups)}}
}

// groupNormKernel is native_group_norm by aclnnGroupNorm, which takes only
// eps > 0 (its CheckAttr).
func groupNormKernel(c *kernel.Call) error {
	x := &c.In[0]
	eps := c.Scalars[0].Float()
	if !(eps > 0) {
		return kernel.Errorf(kernel.ErrNotImplemented, "aclnnGroupNorm takes eps > 0 only, not %v", eps)
	}
	a := groupAttrs(x, c.Ints[0])
	a.F[0] = eps
	return normLaunch(c, npushim.GroupNorm, a, &c.Out[0], &c.Out[1], &c.Out[2], x, &c.In[1], &c.In[2])
}

// The limits of aclnnGroupNormBackward on Atlas A2/A3 (its CheckAttr for
// DAV_2201): the channels, and the channels per group.
const (
	groupNormGradMaxC        = 240000
	groupNormGradMaxPerGroup = 8000
)

// groupNormBackwardKernel is native_group_norm_backward by
// aclnnGroupNormBackward, every gradient asked for. An empty input
// declines: the op then writes nothing (not even the zero gradients of the
// gamma and beta) on Atlas A2/A3 and the chips before.
func groupNormBackwardKernel(c *kernel.Call) error {
	g, x := &c.In[0], &c.In[1]
	if x.Numel() == 0 {
		return kernel.Errorf(kernel.ErrNotImplemented, "aclnnGroupNormBackward writes no gradient of an empty input")
	}
	ch, groups := x.Shape[1], c.Ints[0]
	if chipOf(state.soc) == chipA2 && (ch > groupNormGradMaxC || ch/groups > groupNormGradMaxPerGroup) {
		return kernel.Errorf(kernel.ErrNotImplemented, "aclnnGroupNormBackward takes at most %d channels and %d per group on %s, got %d in %d groups",
			groupNormGradMaxC, groupNormGradMaxPerGroup, socName(), ch, groups)
	}
	a := groupAttrs(x, groups)
	a.Ext[0], a.Ext[1], a.Ext[2] = 1, 1, 1 // outputMask
	return normLaunch(c, npushim.GroupNormBackward, a, &c.Out[0], &c.Out[1], &c.Out[2], g, x, &c.In[2], &c.In[3], &c.In[4])
}
