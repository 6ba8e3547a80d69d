package torch

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// The batch norm kernel: native_batch_norm normalises each channel (dim
// 1) of an (N, C, ...) input in one op per device (the CPU's fused C
// kernel; other devices by the host fallback), and its gradient
// (NativeBatchNormBackward0, PyTorch's name) is one op too.

const batchNormBackwardName = "NativeBatchNormBackward0"

// runBatchNorm runs op with mode and eps over ts (none nil) and returns
// its nOut outputs.
func runBatchNorm(op kernel.OpID, mode int, eps float64, nOut int, ts ...*Tensor) ([]*Tensor, error) {
	if r := passOn(op, ts...); r != nil {
		return nil, r.err
	}
	dev, err := deviceOf(op, ts...)
	if err != nil {
		return nil, err
	}
	c := dispatch.NewCall(op, dev, len(ts), nOut)
	for i, t := range ts {
		c.In[i] = t.operand()
	}
	c.Mode = mode
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

// NativeBatchNorm is torch.native_batch_norm for float32 and float64
// inputs of at least 2 dims: each channel (dim 1) of x normalised over the
// other dims, scaled by weight and shifted by bias (nil: 1 and 0, as
// PyTorch's None). Training, it uses the batch's mean and biased variance
// (computed in double) and also returns them, with invstd =
// 1/sqrt(var + eps) of each channel; it does not touch the running stats,
// which the caller updates. Otherwise it uses runningMean and runningVar
// and returns nil for the three. The output's grad_fn is
// NativeBatchNormBackward0, whose backward is one op (or, for a
// differentiable backward under create_graph, composed of tensor ops).
func NativeBatchNorm(x, weight, bias, runningMean, runningVar *Tensor, training bool, eps float64) (out, mean, invstd, biasedVar *Tensor) {
	const op = "native_batch_norm"
	if err := inputErr(op, x); err != nil {
		f := failed(err)
		return f, f, f, f
	}
	if x.Dim() < 2 {
		f := failed(x.opError(op, ErrShape, "expected an input of at least 2 dims, got %dD input", x.Dim()))
		return f, f, f, f
	}
	c := x.shape[1]
	opts := []Option{WithDType(x.dtype), OnDevice(x.Device())}
	w, b := weight, bias
	if w == nil {
		w = Ones([]int{c}, opts...)
	}
	if b == nil {
		b = Zeros([]int{c}, opts...)
	}
	ts := []*Tensor{x, w, b}
	mode := 1
	if !training {
		if runningMean == nil || runningVar == nil {
			f := failed(x.opError(op, ErrArgument, "running_mean and running_var must be defined in evaluation mode"))
			return f, f, f, f
		}
		ts = append(ts, runningMean, runningVar)
		mode = 0
	}
	nOut := 1
	if training {
		nOut = 4
	}
	outs, err := runBatchNorm(kernel.OpBatchNorm, mode, eps, nOut, ts...)
	if err != nil {
		f := failed(err)
		return f, f, f, f
	}
	y := outs[0]
	if training {
		mean, invstd, biasedVar = outs[1], outs[2], outs[3]
	}
	if !recording(x, weight, bias) {
		return y, mean, invstd, biasedVar
	}
	sx, sw := save(x), save(w)
	var sm, sv saved
	if training {
		sm, sv = save(mean), save(invstd)
	} else {
		sm, sv = save(runningMean), save(runningVar)
	}
	y.setGradFn(batchNormBackwardName, []*Tensor{x, weight, bias}, func(g *Tensor, need []bool, create bool) []*Tensor {
		xs, ws := sx.get(create, batchNormBackwardName), sw.get(create, batchNormBackwardName)
		m, s := sm.get(create, batchNormBackwardName), sv.get(create, batchNormBackwardName)
		for _, t := range []*Tensor{xs, ws, m, s} {
			if t.err != nil {
				return []*Tensor{t, t, t}
			}
		}
		var gs [3]*Tensor
		if create && recording(g, xs, ws) {
			gs = batchNormGradOps(g, xs, ws, m, s, training, eps)
		} else {
			if !training {
				s = s.AddScalar(eps).Rsqrt()
			}
			outs, err := runBatchNorm(kernel.OpBatchNormBackward, mode, eps, 3, g.ToDType(xs.dtype), xs, ws, m, s)
			if err != nil {
				f := failed(err)
				return []*Tensor{f, f, f}
			}
			copy(gs[:], outs)
		}
		res := []*Tensor{fitGrad(gs[0], x), nil, nil}
		if weight != nil && need[1] {
			res[1] = fitGrad(gs[1].Reshape(weight.shape...), weight)
		}
		if bias != nil && need[2] {
			res[2] = fitGrad(gs[2].Reshape(bias.shape...), bias)
		}
		return res
	})
	return y, mean, invstd, biasedVar
}

// batchNormGradOps is the batch norm's backward in differentiable tensor
// ops (for create_graph): training, with the stats recomputed from x,
//
//	gx = (g - mean(g) - xhat * mean(g * xhat)) * invstd * w
//
// and otherwise gx = g * invstd * w with the running stats (m and v);
// gw = sum(g * xhat) and gb = sum(g) over every dim but 1.
func batchNormGradOps(g, x, w, m, v *Tensor, training bool, eps float64) [3]*Tensor {
	dims := []int{0}
	for i := 2; i < x.Dim(); i++ {
		dims = append(dims, i)
	}
	bshape := make([]int, x.Dim())
	for i := range bshape {
		bshape[i] = 1
	}
	bshape[1] = x.shape[1]
	wb := w.Reshape(bshape...)
	var gx, xhat *Tensor
	if training {
		mean := x.MeanKeepDim(dims...)
		invstd := x.VarCorrection(0, true, dims...).AddScalar(eps).Rsqrt()
		xhat = x.Sub(mean).Mul(invstd)
		gx = g.Sub(g.MeanKeepDim(dims...)).Sub(xhat.Mul(g.Mul(xhat).MeanKeepDim(dims...))).Mul(invstd.Mul(wb))
	} else {
		invstd := v.AddScalar(eps).Rsqrt().Reshape(bshape...)
		xhat = x.Sub(m.Reshape(bshape...)).Mul(invstd)
		gx = g.Mul(invstd.Mul(wb))
	}
	return [3]*Tensor{gx, g.Mul(xhat).Sum(dims...), g.Sum(dims...)}
}
