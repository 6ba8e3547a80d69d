package torch

import (
	"slices"
	"strings"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// The layer norm kernel: native_layer_norm normalises the rows of the
// trailing dims in one op (the CPU's fused C kernel: one pass per row;
// other devices by the host fallback), with RMS norm as its Mode 1, and
// its gradient (NativeLayerNormBackward0, PyTorch's name) is one op too.

const (
	layerNormBackwardName = "NativeLayerNormBackward0"
	rmsNormBackwardName   = "FusedRmsNormBackward0"
)

// runLayerNorm runs op (mode 1: RMS norm) over the n trailing dims of
// ts (none nil) with eps and returns its three outputs.
func runLayerNorm(op kernel.OpID, mode, n int, eps float64, ts ...*Tensor) ([]*Tensor, error) {
	if r := passOn(op, ts...); r != nil {
		return nil, r.err
	}
	dev, err := deviceOf(op, ts...)
	if err != nil {
		return nil, err
	}
	c := dispatch.NewCall(op, dev, len(ts), 3)
	for i, t := range ts {
		c.In[i] = t.operand()
	}
	c.Mode = mode
	c.Ints = c.NewInts(1)
	c.Ints[0] = n
	c.Scalars[0] = kernel.FloatScalar(eps)
	if err := dispatch.Run(c); err != nil {
		dispatch.Free(c)
		return nil, err
	}
	outs := make([]*Tensor, len(c.Out))
	for i := range outs {
		outs[i] = result(c, i)
	}
	dispatch.Free(c)
	return outs, nil
}

// NativeLayerNorm is torch.native_layer_norm for float32 and float64
// inputs: the trailing dims normalizedShape of x normalised per row to
// mean 0 and variance 1 (biased; the stats in double), scaled by weight
// and shifted by bias (nil: 1 and 0, as PyTorch's None). It also returns
// each row's mean and rstd = 1/sqrt(var + eps), of x's shape with the
// normalised dims 1. The output's grad_fn is NativeLayerNormBackward0,
// one op (composed of tensor ops for a differentiable backward under
// create_graph).
func NativeLayerNorm(x *Tensor, normalizedShape []int, weight, bias *Tensor, eps float64) (out, mean, rstd *Tensor) {
	y, m, r := rowNorm("native_layer_norm", x, normalizedShape, weight, bias, eps, false)
	return y, m, r
}

// FusedRMSNorm is x divided by the root mean square of its trailing dims
// normalizedShape plus eps, times weight (nil: none), for float32 and
// float64 inputs, as PyTorch 2.x's torch._fused_rms_norm: one op per row
// (the square mean in double). It also returns each row's rstd =
// 1/sqrt(mean(x^2) + eps), of x's shape with the normalised dims 1.
func FusedRMSNorm(x *Tensor, normalizedShape []int, weight *Tensor, eps float64) (out, rstd *Tensor) {
	y, _, r := rowNorm("rms_norm", x, normalizedShape, weight, nil, eps, true)
	return y, r
}

// rowNorm checks and runs a layer norm (or an RMS norm) and records its gradient.
func rowNorm(op string, x *Tensor, shape []int, weight, bias *Tensor, eps float64, rms bool) (out, mean, rstd *Tensor) {
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
	n := len(shape)
	if n == 0 {
		return fail(x.opError(op, ErrShape, "Expected normalized_shape to be at least 1-dimensional, i.e., "+
			"containing at least one element, but got normalized_shape = []"))
	}
	if x.Dim() < n || !slices.Equal(x.shape[x.Dim()-n:], shape) {
		ns := kernel.ShapeString(shape)
		return fail(x.opError(op, ErrShape, "Given normalized_shape=%s, expected input with shape [*, %s], but got input of size%s",
			ns, strings.Trim(ns, "[]"), kernel.ShapeString(x.shape)))
	}
	opts := []Option{WithDType(x.dtype), OnDevice(x.Device())}
	w, b := weight, bias
	if w == nil {
		w = Ones(shape, opts...)
	}
	if b == nil {
		b = Zeros(shape, opts...)
	}
	mode, name := 0, layerNormBackwardName
	if rms {
		mode, name = 1, rmsNormBackwardName
	}
	outs, err := runLayerNorm(kernel.OpLayerNorm, mode, n, eps, x, w, b)
	if err != nil {
		return fail(err)
	}
	y, mean, rstd := outs[0], outs[1], outs[2]
	if !recording(x, weight, bias) {
		return y, mean, rstd
	}
	recordNormGrad(name, y, x, weight, bias, w, mean, rstd, func(g, xs, ws *Tensor) [3]*Tensor {
		return layerNormGradOps(g, xs, ws, n, eps, rms)
	}, func(g, xs, m, r, ws *Tensor) ([]*Tensor, error) {
		return runLayerNorm(kernel.OpLayerNormBackward, mode, n, eps, g, xs, m, r, ws)
	})
	return y, mean, rstd
}

// layerNormGradOps is the layer norm's backward in differentiable tensor
// ops (for create_graph), with the stats recomputed from x over its n
// trailing dims: with xhat = (x - mean) * rstd and gw = g * w,
//
//	gx = (gw - mean(gw) - xhat * mean(gw * xhat)) * rstd
//
// (RMS norm: no mean, xhat = x * rstd, no mean(gw) term); the weight's
// gradient is the sum of g * xhat and the bias's the sum of g over the
// leading dims.
func layerNormGradOps(g, x, w *Tensor, n int, eps float64, rms bool) [3]*Tensor {
	dims := make([]int, n)
	for i := range dims {
		dims[i] = -1 - i
	}
	lead := make([]int, x.Dim()-n)
	for i := range lead {
		lead[i] = i
	}
	var xhat, rstd, gx *Tensor
	gw := g.Mul(w)
	if rms {
		rstd = x.Square().MeanKeepDim(dims...).AddScalar(eps).Rsqrt()
		xhat = x.Mul(rstd)
		gx = gw.Sub(xhat.Mul(gw.Mul(xhat).MeanKeepDim(dims...))).Mul(rstd)
	} else {
		rstd = x.VarCorrection(0, true, dims...).AddScalar(eps).Rsqrt()
		xhat = x.Sub(x.MeanKeepDim(dims...)).Mul(rstd)
		gx = gw.Sub(gw.MeanKeepDim(dims...)).Sub(xhat.Mul(gw.Mul(xhat).MeanKeepDim(dims...))).Mul(rstd)
	}
	gwt, gb := g.Mul(xhat), g
	if len(lead) > 0 {
		gwt, gb = gwt.Sum(lead...), gb.Sum(lead...)
	}
	return [3]*Tensor{gx, gwt, gb}
}

// recordNormGrad records the gradient of a fused norm y of x (weight and
// bias as the caller gave them, nil for none; w the weight the op used):
// the backward op run (x, mean, rstd and w saved), or under create_graph
// its differentiable formula ops.
func recordNormGrad(name string, y, x, weight, bias, w, mean, rstd *Tensor, ops func(g, x, w *Tensor) [3]*Tensor,
	run func(g, x, mean, rstd, w *Tensor) ([]*Tensor, error)) {
	sx, sw, sm, sr := save(x), save(w), save(mean), save(rstd)
	y.setGradFn(name, []*Tensor{x, weight, bias}, func(g *Tensor, need []bool, create bool) []*Tensor {
		xs, ws, m, r := sx.get(create, name), sw.get(create, name), sm.get(create, name), sr.get(create, name)
		for _, t := range []*Tensor{xs, ws, m, r} {
			if t.err != nil {
				return []*Tensor{t, t, t}
			}
		}
		var gs [3]*Tensor
		if create && recording(g, xs, ws) {
			gs = ops(g, xs, ws)
		} else {
			outs, err := run(g.ToDType(xs.dtype), xs, m, r, ws)
			if err != nil {
				f := failed(err)
				return []*Tensor{f, f, f}
			}
			copy(gs[:], outs)
		}
		res := []*Tensor{fitGrad(gs[0], x), nil, nil}
		if weight != nil && need[1] {
			res[1] = fitGrad(gs[1], weight)
		}
		if bias != nil && need[2] {
			res[2] = fitGrad(gs[2], bias)
		}
		return res
	})
}
