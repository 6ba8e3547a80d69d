package benchsuite_test

import (
	"fmt"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// BenchmarkEmbedding looks up 4096 rows of a 32000x512 table.
func BenchmarkEmbedding(b *testing.B) {
	w, ix := input([]int{32000, 512}, 1e-3), indices(4096, 32000)
	checksum(b, torch.Embedding(ix, w))
	modes(b, func() []*torch.Tensor { return []*torch.Tensor{torch.Embedding(ix, w)} }, nil)
}

// BenchmarkLayerNorm is nn.LayerNorm over the last dim of 64x512x768,
// without gradients.
func BenchmarkLayerNorm(b *testing.B) {
	x, ln := input([]int{64, 512, 768}, 1e-3), nn.NewLayerNorm([]int{768})
	forward := func() (y *torch.Tensor) {
		torch.NoGrad(func() { y = ln.Forward(x) })
		return y
	}
	checksum(b, forward())
	modes(b, func() []*torch.Tensor { return []*torch.Tensor{forward()} }, nil)
}

// BenchmarkAdd adds two vectors of 1e5 and 1e6 floats.
func BenchmarkAdd(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		x, y, out := input([]int{n}, 1e-3), input([]int{n}, 2e-3), torch.Empty([]int{n})
		b.Run(fmt.Sprintf("%.0e", float64(n)), func(b *testing.B) {
			checksum(b, x.Add(y))
			modes(b, func() []*torch.Tensor { return []*torch.Tensor{x.Add(y)} },
				func() { torch.Into(out).Add(x, y) })
		})
	}
}

// BenchmarkAddBroadcast adds a 1024 vector to each row of a 1024x1024 matrix.
func BenchmarkAddBroadcast(b *testing.B) {
	x, y, out := input([]int{1024, 1024}, 1e-3), input([]int{1024}, 2e-3), torch.Empty([]int{1024, 1024})
	checksum(b, x.Add(y))
	modes(b, func() []*torch.Tensor { return []*torch.Tensor{x.Add(y)} },
		func() { torch.Into(out).Add(x, y) })
}

// BenchmarkAffineRelu is ((x*a)+c).relu() on 1e6 floats: three ops whose
// first two results are intermediates.
func BenchmarkAffineRelu(b *testing.B) {
	n := 1_000_000
	x, a, c, out := input([]int{n}, 1e-3), input([]int{n}, 2e-3), input([]int{n}, 3e-3), torch.Empty([]int{n})
	checksum(b, x.Mul(a).Add(c).Relu())
	modesReleasing(b, func() []*torch.Tensor {
		p := x.Mul(a)
		q := p.Add(c)
		return []*torch.Tensor{p, q, q.Relu()}
	}, func() {
		p := x.Mul(a)
		q := p.Add(c)
		p.Release()
		q.Relu().Release()
		q.Release()
	}, func() {
		o := torch.Into(out)
		o.Mul(x, a)
		o.Add(out, c)
		o.Relu(out)
	})
}

// BenchmarkMatmul2048 multiplies two 2048x2048 matrices.
func BenchmarkMatmul2048(b *testing.B) {
	x, y, out := input([]int{2048, 2048}, 1e-3), input([]int{2048, 2048}, 2e-3), torch.Empty([]int{2048, 2048})
	checksum(b, x.MatMul(y))
	modes(b, func() []*torch.Tensor { return []*torch.Tensor{x.MatMul(y)} },
		func() { torch.Into(out).Mm(x, y) })
}
