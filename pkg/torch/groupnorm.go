package torch

import "github.com/mindtorch/mindtorch/pkg/backends/kernel"

// The group norm kernel: native_group_norm normalises each group of the
// channels (dim 1) of each sample in one op (on the CPU, the layer norm's
// fused C kernel over rows of a group's channels, each channel's spatial
// elements sharing a weight and bias), and its gradient
// (NativeGroupNormBackward0, PyTorch's name) is one op too.

const groupNormBackwardName = "NativeGroupNormBackward0"

// NativeGroupNorm is torch.native_group_norm for float32 and float64
// inputs [N, C, ...]: the C channels fall into groups of C/groups, each
// group of each sample normalised to mean 0 and variance 1 (biased; the
// stats in double), then each channel scaled by weight and shifted by
// bias ([C]; nil: 1 and 0). It also returns the mean and rstd of each
// group, [N, groups]. The output's grad_fn is NativeGroupNormBackward0,
// one op (composed of tensor ops for a differentiable backward under
// create_graph).
func NativeGroupNorm(x, weight, bias *Tensor, groups int, eps float64) (out, mean, rstd *Tensor) {
	const op = "native_group_norm"
	fail := func(err error) (*Tensor, *Tensor, *Tensor) {
		f := failed(err)
		return f, f, f
	}
	if err := inputErr(op, x); err != nil {
		return fail(err)
	}
	for _, t := range []*Tensor{weight, bias} {
		if t != nil {
			if err := inputErr(op, t); err != nil {
				return fail(err)
			}
		}
	}
	if x.Dim() < 2 {
		return fail(x.opError(op, ErrShape, "Expected at least 2 dimensions for input tensor but received %d", x.Dim()))
	}
	c := x.shape[1]
	if groups <= 0 || c%groups != 0 {
		return fail(x.opError(op, ErrShape, "Expected number of channels in input to be divisible by num_groups, "+
			"but got input of shape %s and num_groups=%d", kernel.ShapeString(x.shape), groups))
	}
	opts := []Option{WithDType(x.dtype), OnDevice(x.Device())}
	w, b := weight, bias
	if w == nil {
		w = Ones([]int{c}, opts...)
	}
	if b == nil {
		b = Zeros([]int{c}, opts...)
	}
	outs, err := runLayerNorm(kernel.OpGroupNorm, 0, groups, eps, x, w, b)
	if err != nil {
		return fail(err)
	}
	y, mean, rstd := outs[0], outs[1], outs[2]
	if !recording(x, weight, bias) {
		return y, mean, rstd
	}
	recordNormGrad(groupNormBackwardName, y, x, weight, bias, w, mean, rstd, func(g, xs, ws *Tensor) [3]*Tensor {
		return groupNormGradOps(g, xs, ws, groups, eps)
	}, func(g, xs, m, r, ws *Tensor) ([]*Tensor, error) {
		return runLayerNorm(kernel.OpGroupNormBackward, 0, groups, eps, g, xs, m, r, ws)
	})
	return y, mean, rstd
}

// groupNormGradOps is the group norm's backward in differentiable tensor
// ops (for create_graph), with the stats recomputed from x: the layer
// norm's formula over each group ([N, groups, rest]) with gw = g * w per
// channel; the weight's gradient is the sum of g * xhat and the bias's
// the sum of g over every dim but 1.
func groupNormGradOps(g, x, w *Tensor, groups int, eps float64) [3]*Tensor {
	n, c := x.shape[0], x.shape[1]
	per := kernel.Numel(x.shape) / max(n*groups, 1)
	wshape := make([]int, x.Dim())
	for i := range wshape {
		wshape[i] = 1
	}
	wshape[1] = c
	xr := x.Reshape(n, groups, per)
	rstd := xr.VarCorrection(0, true, 2).AddScalar(eps).Rsqrt()
	xhat := xr.Sub(xr.MeanKeepDim(2)).Mul(rstd)
	gw := g.Mul(w.Reshape(wshape...)).Reshape(n, groups, per)
	gx := gw.Sub(gw.MeanKeepDim(2)).Sub(xhat.Mul(gw.Mul(xhat).MeanKeepDim(2))).Mul(rstd).Reshape(x.shape...)
	dims := []int{0}
	for i := 2; i < x.Dim(); i++ {
		dims = append(dims, i)
	}
	return [3]*Tensor{gx, g.Mul(xhat.Reshape(x.shape...)).Sum(dims...), g.Sum(dims...)}
}
