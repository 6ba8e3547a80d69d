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
// A gradient of a column-major matrix (a transposed view, as Linear's
// weight.T()) is computed as the transpose of a row-major product, as
// PyTorch's mm_mat1_backward and mm_mat2_backward do: after the view's own
// backward transposes it back, it has the layout of the parameter, and the
// gradient accumulates without a transposing copy.
func productGrads(g, a, b *Tensor, needA, needB bool) (ga, gb *Tensor) {
	if needA {
		if columnMajor(a) {
			ga = b.MatMul(g.MT()).MT()
		} else {
			ga = g.MatMul(b.MT())
		}
	}
	if needB {
		if columnMajor(b) {
			gb = g.MT().MatMul(a).MT()
		} else {
			gb = a.MT().MatMul(g)
		}
	}
	return ga, gb
}

// columnMajor reports whether t is a matrix laid out column by column.
func columnMajor(t *Tensor) bool {
	return t.Dim() == 2 && t.shape[0] > 1 && t.shape[1] > 1 && t.strides[0] == 1 && t.strides[1] == t.shape[0]
}
