package torch

import (
	"slices"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// The derivatives of the data-movement ops, where, lerp and clamp with
// tensor bounds (and, through linalg_grad.go, the matrix products),
// recorded by runOp and runOpInPlace. Ops without a rule here
// record a node that reports the missing derivative when a backward pass
// reaches it, so that a gradient never silently goes missing.

// opAttrs are the attributes of a call that a derivative needs.
type opAttrs struct {
	dim     int
	dims    []int
	scalars [3]kernel.Scalar
	mode    int
	keep    bool
}

// attrsOf copies the attributes out of c before the call is recycled.
func attrsOf(c *kernel.Call) opAttrs {
	return opAttrs{dim: c.Dim, dims: append([]int(nil), c.Dims...), scalars: c.Scalars, mode: c.Mode, keep: c.KeepDim}
}

// recordedByCaller names the ops that go through runOp but whose callers
// record their own, richer nodes (they need the output or a second one).
func recordedByCaller(op kernel.OpID) bool {
	switch op {
	case kernel.OpSoftmax, kernel.OpLogSoftmax, kernel.OpCumsum, kernel.OpCumprod:
		return true
	}
	return false
}

// zerosFor is a zero tensor of t's shape in g's dtype and on g's device.
func zerosFor(t, g *Tensor) *Tensor {
	return Zeros(t.shape, WithDType(g.dtype), OnDevice(g.Device()))
}

func recordRunOp(op kernel.OpID, a opAttrs, ts []*Tensor, y *Tensor) {
	var name string
	var fn backwardFn
	dim := a.dim
	switch op {
	case kernel.OpMm, kernel.OpBmm, kernel.OpAddmm, kernel.OpBaddbmm, kernel.OpDot:
		recordProduct(op, a.scalars[0], a.scalars[1], ts, y)
		return
	case kernel.OpCat:
		name, fn = "CatBackward0", func(g *Tensor, need []bool, _ bool) []*Tensor {
			out := make([]*Tensor, len(ts))
			at := 0
			for i, t := range ts {
				if t.Dim() == 1 && t.shape[0] == 0 && g.Dim() != 1 {
					continue // a legacy empty input takes no part
				}
				if need[i] {
					out[i] = fitGrad(g.Narrow(dim, at, t.shape[dim]), t)
				}
				at += t.shape[dim]
			}
			return out
		}
	case kernel.OpGather:
		t, index := ts[0], ts[1]
		name, fn = "GatherBackward0", func(g *Tensor, _ []bool, _ bool) []*Tensor {
			return []*Tensor{zerosFor(t, g).ScatterAdd(dim, index, g), nil}
		}
	case kernel.OpScatter:
		index := ts[1]
		if len(ts) == 2 { // one value for every position
			name, fn = "ScatterBackward1", func(g *Tensor, _ []bool, _ bool) []*Tensor {
				return []*Tensor{g.ScatterValue(dim, index, 0), nil}
			}
			break
		}
		src := ts[2]
		name, fn = "ScatterBackward0", func(g *Tensor, need []bool, _ bool) []*Tensor {
			out := make([]*Tensor, 3)
			if need[0] {
				out[0] = g.ScatterValue(dim, index, 0)
			}
			if need[2] {
				out[2] = srcGrad(g, dim, index, src)
			}
			return out
		}
	case kernel.OpScatterAdd:
		index, src := ts[1], ts[2]
		name, fn = "ScatterAddBackward0", func(g *Tensor, need []bool, _ bool) []*Tensor {
			out := []*Tensor{g, nil, nil}
			if need[2] {
				out[2] = srcGrad(g, dim, index, src)
			}
			return out
		}
	case kernel.OpScatterReduce:
		if a.mode != kernel.ReduceSum {
			break // only the sum has a derivative here
		}
		index, src := ts[1], ts[2]
		includeSelf := a.keep
		name, fn = "ScatterReduceBackward0", func(g *Tensor, need []bool, _ bool) []*Tensor {
			out := make([]*Tensor, 3)
			if need[0] {
				out[0] = g
				if !includeSelf {
					out[0] = g.ScatterValue(dim, index, 0)
				}
			}
			if need[2] {
				out[2] = srcGrad(g, dim, index, src)
			}
			return out
		}
	case kernel.OpIndexSelect:
		t, index := ts[0], ts[1]
		name, fn = "IndexSelectBackward0", func(g *Tensor, _ []bool, _ bool) []*Tensor {
			return []*Tensor{zerosFor(t, g).IndexAdd(dim, index, g, 1), nil}
		}
	case kernel.OpIndexAdd:
		index, source := ts[1], ts[2]
		alpha := a.scalars[0].Float()
		name, fn = "IndexAddBackward0", func(g *Tensor, need []bool, _ bool) []*Tensor {
			out := []*Tensor{g, nil, nil}
			if need[2] {
				gs := g
				if g.Dim() > 0 {
					gs = g.IndexSelect(dim, index)
				}
				if alpha != 1 {
					gs = gs.MulScalar(alpha)
				}
				out[2] = fitGrad(gs, source)
			}
			return out
		}
	case kernel.OpMaskedSelect:
		t, mask := ts[0], ts[1]
		name, fn = "MaskedSelectBackward0", func(g *Tensor, _ []bool, _ bool) []*Tensor {
			shape, _ := kernel.BroadcastShapes(t.shape, mask.shape) // the forward call checked it
			at := mask.Expand(shape...).Reshape(-1).Nonzero().SqueezeDim(1)
			z := Zeros([]int{kernel.Numel(shape)}, WithDType(g.dtype), OnDevice(g.Device()))
			return []*Tensor{fitGrad(z.IndexAdd(0, at, g, 1).View(shape...), t), nil}
		}
	case kernel.OpFlip:
		dims := a.dims
		name, fn = "FlipBackward0", func(g *Tensor, _ []bool, _ bool) []*Tensor { return []*Tensor{g.Flip(dims...)} }
	case kernel.OpWhere:
		cond, x, z := ts[0], ts[1], ts[2]
		name, fn = "WhereBackward0", func(g *Tensor, need []bool, _ bool) []*Tensor {
			out := make([]*Tensor, 3)
			if need[1] {
				out[1] = fitGrad(g.MaskedFill(cond.LogicalNot(), 0), x)
			}
			if need[2] {
				out[2] = fitGrad(g.MaskedFill(cond, 0), z)
			}
			return out
		}
	case kernel.OpThresholdBackward: // linear in the gradient; x only selects
		x, th := ts[1], a.scalars[0].Float()
		name, fn = "ThresholdBackwardBackward0", func(g *Tensor, _ []bool, _ bool) []*Tensor {
			return []*Tensor{ThresholdBackward(g, x.Detach(), th), nil}
		}
	case kernel.OpLerp:
		name, fn = lerpGrad(ts, a.scalars[0].Float())
	case kernel.OpClampTensor:
		name, fn = clampTensorGrad(ts)
	}
	if fn == nil {
		y.setGradFn(op.String()+"Backward", ts, notDifferentiable(op))
		return
	}
	y.setGradFn(name, ts, fn)
}

// srcGrad is the gradient of scatter's src: g at the positions index
// names, and zeros for the elements of src beyond index's shape (index
// may be smaller than src in any dim; PyTorch then fails in backward).
func srcGrad(g *Tensor, dim int, index, src *Tensor) *Tensor {
	picked := g.Gather(dim, index)
	if picked.err != nil || slices.Equal(index.shape, src.shape) {
		return fitGrad(picked, src)
	}
	z := zerosFor(src, picked)
	v := z
	for d, n := range index.shape {
		v = v.Narrow(d, 0, n)
	}
	if r := v.Copy_(picked); r.err != nil {
		return r
	}
	return fitGrad(z, src)
}

// lerpGrad is the derivative of start + w*(end - start), with w a tensor
// (ts[2]) or the Go scalar w.
func lerpGrad(ts []*Tensor, w float64) (string, backwardFn) {
	start, end := save(ts[0]), save(ts[1])
	if len(ts) == 2 {
		return "LerpBackward0", func(g *Tensor, _ []bool, _ bool) []*Tensor {
			return []*Tensor{fitGrad(g.MulScalar(1-w), ts[0]), fitGrad(g.MulScalar(w), ts[1])}
		}
	}
	weight := save(ts[2])
	const name = "LerpBackward1"
	return name, func(g *Tensor, need []bool, create bool) []*Tensor {
		wv := weight.get(create, name)
		out := make([]*Tensor, 3)
		if need[0] {
			out[0] = fitGrad(g.Mul(wv.Neg().AddScalar(1)), ts[0])
		}
		if need[1] {
			out[1] = fitGrad(g.Mul(wv), ts[1])
		}
		if need[2] {
			out[2] = fitGrad(g.Mul(end.get(create, name).Sub(start.get(create, name))), ts[2])
		}
		return out
	}
}

// clampTensorGrad is the derivative of clamp(x, lo, hi) with tensor bounds,
// as PyTorch: x gets the gradient where lo <= x <= hi; lo where x < lo (and
// lo < hi); hi where x > hi or hi < lo.
func clampTensorGrad(ts []*Tensor) (string, backwardFn) {
	const name = "ClampBackward0"
	sx, slo, shi := save(ts[0]), save(ts[1]), save(ts[2])
	return name, func(g *Tensor, need []bool, create bool) []*Tensor {
		x, lo, hi := sx.get(create, name), slo.get(create, name), shi.get(create, name)
		zero := Zeros(nil, WithDType(g.dtype), OnDevice(g.Device()))
		out := make([]*Tensor, 3)
		if need[0] {
			out[0] = fitGrad(Where(x.Ge(lo).LogicalAnd(x.Le(hi)), g, zero), ts[0])
		}
		if need[1] {
			out[1] = fitGrad(Where(x.Lt(lo).LogicalAnd(lo.Lt(hi)), g, zero), ts[1])
		}
		if need[2] {
			out[2] = fitGrad(Where(x.Gt(hi).LogicalOr(hi.Lt(lo)), g, zero), ts[2])
		}
		return out
	}
}

// recordSorted records the values of sort and topk: each gradient element
// goes back to the position its value came from.
func recordSorted(name string, t, values, indices *Tensor, dim int) {
	d, _ := kernel.NormalizeDim(dim, max(t.Dim(), 1))
	values.setGradFn(name, []*Tensor{t}, func(g *Tensor, _ []bool, _ bool) []*Tensor {
		if t.Dim() == 0 {
			return []*Tensor{g}
		}
		return []*Tensor{zerosFor(t, g).Scatter(d, indices, g)}
	})
}
