package torch

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// Decompositions of the fused norms (native_layer_norm with its RMS mode,
// native_group_norm) and their backwards, for devices without their
// kernels: the composite of tensor ops that nn used before the fused CPU
// kernels, with the same outputs (the mean and rstd of each row too), so
// that on the NPU the norms keep running on the device.

func init() {
	dispatch.RegisterDecomposition(kernel.OpLayerNorm, decomposeLayerNorm)
	dispatch.RegisterDecomposition(kernel.OpLayerNormBackward, decomposeLayerNormBackward)
	dispatch.RegisterDecomposition(kernel.OpGroupNorm, decomposeGroupNorm)
	dispatch.RegisterDecomposition(kernel.OpGroupNormBackward, decomposeGroupNormBackward)
}

// trailingDims are the dims -1 ... -n.
func trailingDims(n int) []int {
	dims := make([]int, n)
	for i := range dims {
		dims[i] = -1 - i
	}
	return dims
}

// decomposeLayerNorm is native_layer_norm (Mode 1: RMS norm, whose mean
// is 0 and which has no bias) over the Ints[0] trailing dims.
func decomposeLayerNorm(c *kernel.Call) error {
	x, w, b := operandTensor(&c.In[0]), operandTensor(&c.In[1]), operandTensor(&c.In[2])
	dims, eps := trailingDims(c.Ints[0]), c.Scalars[0].Float()
	var y, mean, rstd *Tensor
	if c.Mode == 1 {
		rstd = x.Square().MeanKeepDim(dims...).AddScalar(eps).Rsqrt()
		mean = ZerosLike(rstd)
		y = x.Mul(rstd).Mul(w)
	} else {
		mean = x.MeanKeepDim(dims...)
		rstd = x.VarCorrection(0, true, dims...).AddScalar(eps).Rsqrt()
		y = x.Sub(mean).Mul(rstd).Mul(w).Add(b)
	}
	return writeOutputs(c, y, mean, rstd)
}

// decomposeLayerNormBackward is native_layer_norm_backward by
// layerNormGradOps (the stats recomputed from the input).
func decomposeLayerNormBackward(c *kernel.Call) error {
	g, x, w := operandTensor(&c.In[0]), operandTensor(&c.In[1]), operandTensor(&c.In[4])
	gs := layerNormGradOps(g, x, w, c.Ints[0], c.Scalars[0].Float(), c.Mode == 1)
	return writeOutputs(c, gs[0], gs[1], gs[2])
}

// decomposeGroupNorm is native_group_norm over Ints[0] groups of the
// channels (dim 1) of each sample.
func decomposeGroupNorm(c *kernel.Call) error {
	x, w, b := operandTensor(&c.In[0]), operandTensor(&c.In[1]), operandTensor(&c.In[2])
	groups, eps := c.Ints[0], c.Scalars[0].Float()
	n := x.shape[0]
	per := kernel.Numel(x.shape) / max(n*groups, 1)
	wshape := make([]int, x.Dim())
	for i := range wshape {
		wshape[i] = 1
	}
	wshape[1] = x.shape[1]
	xr := x.Reshape(n, groups, per)
	mean := xr.Mean(2)
	rstd := xr.VarCorrection(0, false, 2).AddScalar(eps).Rsqrt()
	y := xr.Sub(mean.Unsqueeze(2)).Mul(rstd.Unsqueeze(2)).Reshape(x.shape...).Mul(w.Reshape(wshape...)).Add(b.Reshape(wshape...))
	return writeOutputs(c, y, mean, rstd)
}

// decomposeGroupNormBackward is native_group_norm_backward by
// groupNormGradOps (the stats recomputed from the input).
func decomposeGroupNormBackward(c *kernel.Call) error {
	g, x, w := operandTensor(&c.In[0]), operandTensor(&c.In[1]), operandTensor(&c.In[4])
	gs := groupNormGradOps(g, x, w, c.Ints[0], c.Scalars[0].Float())
	return writeOutputs(c, gs[0], gs[1], gs[2])
}

// writeOutputs writes rs into the call's outputs in order.
func writeOutputs(c *kernel.Call, rs ...*Tensor) error {
	for i, r := range rs {
		if err := writeOutput(c, i, r); err != nil {
			return err
		}
	}
	return nil
}
