package torch

import "github.com/mindtorch/mindtorch/pkg/backends/kernel"

// The derivatives of the data-movement ops and where, recorded by runOp
// and ternary. Ops without a rule here record a node that reports the
// missing derivative when a backward pass reaches it, so that a gradient
// never silently goes missing.

func recordRunOp(op kernel.OpID, dim int, dims []int, ts []*Tensor, y *Tensor) {
	var name string
	var fn backwardFn
	switch op {
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
			z := Zeros(t.shape, WithDType(g.dtype), WithDevice(g.Device().String()))
			return []*Tensor{z.ScatterAdd(dim, index, g), nil}
		}
	case kernel.OpIndexSelect:
		t, index := ts[0], ts[1]
		name, fn = "IndexSelectBackward0", func(g *Tensor, _ []bool, _ bool) []*Tensor {
			z := Zeros(t.shape, WithDType(g.dtype), WithDevice(g.Device().String()))
			return []*Tensor{z.IndexAdd(dim, index, g, 1), nil}
		}
	case kernel.OpFlip:
		name, fn = "FlipBackward0", func(g *Tensor, _ []bool, _ bool) []*Tensor { return []*Tensor{g.Flip(dims...)} }
	case kernel.OpWhere:
		cond, a, b := ts[0], ts[1], ts[2]
		name, fn = "WhereBackward0", func(g *Tensor, need []bool, _ bool) []*Tensor {
			out := make([]*Tensor, 3)
			if need[1] {
				out[1] = fitGrad(g.MaskedFill(cond.LogicalNot(), 0), a)
			}
			if need[2] {
				out[2] = fitGrad(g.MaskedFill(cond, 0), b)
			}
			return out
		}
	default:
		y.setGradFn(op.String()+"Backward", ts, notDifferentiable(op))
		return
	}
	y.setGradFn(name, ts, fn)
}
