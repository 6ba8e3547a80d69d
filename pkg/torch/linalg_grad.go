package torch

import "github.com/mindtorch/mindtorch/pkg/backends/kernel"

// The derivatives of the matrix products. matmul, mv, outer and linear are
// compositions of these and of views, so their gradients follow.

var productNames = map[kernel.OpID]string{kernel.OpMm: "MmBackward0", kernel.OpBmm: "BmmBackward0",
	kernel.OpAddmm: "AddmmBackward0", kernel.OpBaddbmm: "BaddbmmBackward0", kernel.OpDot: "DotBackward0"}

// recordProduct records y = op(ts...) with Scalars beta and alpha.
func recordProduct(op kernel.OpID, beta, alpha kernel.Scalar, ts []*Tensor, y *Tensor) {
	saves := make([]saved, len(ts))
	for i, t := range ts {
		saves[i] = save(t)
	}
	name := productNames[op]
	y.setGradFn(name, ts, func(g *Tensor, need []bool, create bool) []*Tensor {
		in := make([]*Tensor, len(ts))
		for i, s := range saves {
			in[i] = s.get(create, name)
		}
		out := make([]*Tensor, len(ts))
		switch op {
		case kernel.OpMm, kernel.OpBmm:
			out[0], out[1] = productGrads(g, in[0], in[1], need[0], need[1])
		case kernel.OpDot:
			if need[0] {
				out[0] = in[1].Mul(g)
			}
			if need[1] {
				out[1] = in[0].Mul(g)
			}
		case kernel.OpAddmm, kernel.OpBaddbmm:
			if need[0] {
				out[0] = scaled(g, beta)
			}
			out[1], out[2] = productGrads(scaled(g, alpha), in[1], in[2], need[1], need[2])
		}
		for i := range out {
			if out[i] != nil {
				out[i] = fitGrad(out[i], ts[i])
			}
		}
		return out
	})
}

// productGrads are the gradients of a @ b (matrices or batches of them).
func productGrads(g, a, b *Tensor, needA, needB bool) (ga, gb *Tensor) {
	if needA {
		ga = g.MatMul(b.MT())
	}
	if needB {
		gb = a.MT().MatMul(g)
	}
	return ga, gb
}
