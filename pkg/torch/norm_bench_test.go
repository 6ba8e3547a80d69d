package torch_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The benchmarks of the norms and of embedding that PyTorch's twins time
// too (scripts/bench_torch.py): layer norm of 64x512x768 over 768, RMS
// norm of the same, group norm of 32x256x16x16 in 32 groups, an
// embedding of 4096 rows of a 32000x512 table; forward, and forward and
// backward. Results are released at once, as PyTorch frees them. (The
// forward passes of layer norm and embedding are internal/benchsuite's.)

// normGrads runs the backward of y for the output gradient g into ins and
// releases the gradients.
func normGrads(b *testing.B, y, g *torch.Tensor, ins ...*torch.Tensor) {
	gs, err := torch.Grad([]*torch.Tensor{y}, ins, torch.GradOptions{GradOutputs: []*torch.Tensor{g}})
	if err != nil {
		b.Fatal(err)
	}
	for _, t := range gs {
		t.Release()
	}
}

// BenchmarkLayerNormBackward is the forward and the backward into the
// input, the weight and the bias.
func BenchmarkLayerNormBackward(b *testing.B) {
	x := torch.Randn([]int{64, 512, 768}, seeded()).RequiresGrad_(true)
	g := torch.Randn([]int{64, 512, 768}, seeded())
	ln := nn.NewLayerNorm([]int{768})
	for b.Loop() {
		y := ln.Forward(x)
		normGrads(b, y, g, x, ln.Weight, ln.Bias)
		y.Release()
	}
}

func BenchmarkRMSNorm(b *testing.B) {
	x := torch.Randn([]int{64, 512, 768}, seeded())
	r := nn.NewRMSNorm([]int{768}, true)
	for b.Loop() {
		torch.NoGrad(func() { r.Forward(x).Release() })
	}
}

func BenchmarkGroupNorm(b *testing.B) {
	x := torch.Randn([]int{32, 256, 16, 16}, seeded())
	gn := nn.NewGroupNorm(32, 256, true)
	for b.Loop() {
		torch.NoGrad(func() { gn.Forward(x).Release() })
	}
}

// BenchmarkGroupNormBackward is the forward and the backward into the
// input, the weight and the bias.
func BenchmarkGroupNormBackward(b *testing.B) {
	x := torch.Randn([]int{32, 256, 16, 16}, seeded()).RequiresGrad_(true)
	g := torch.Randn([]int{32, 256, 16, 16}, seeded())
	gn := nn.NewGroupNorm(32, 256, true)
	for b.Loop() {
		y := gn.Forward(x)
		normGrads(b, y, g, x, gn.Weight, gn.Bias)
		y.Release()
	}
}

// BenchmarkEmbeddingBackward is the lookup and the table's gradient.
func BenchmarkEmbeddingBackward(b *testing.B) {
	w := torch.Randn([]int{32000, 512}, seeded()).RequiresGrad_(true)
	idx := torch.Randint(0, 32000, []int{4096}, seeded())
	g := torch.Randn([]int{4096, 512}, seeded())
	for b.Loop() {
		y := torch.Embedding(idx, w)
		normGrads(b, y, g, w)
		y.Release()
	}
}
