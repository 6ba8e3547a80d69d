package torch_test

import (
	"fmt"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// chain4 is the chain of four pointwise ops: x*a + b, relu, sigmoid.
func chain4(x, a, b *torch.Tensor) *torch.Tensor { return x.Mul(a).Add(b).Relu().Sigmoid() }

// BenchmarkChain times chain4 on float32 tensors at once (eager) and in a
// pipeline (one fused pass over memory, no intermediate allocated), the
// results left to the garbage collector, as user code leaves them.
func BenchmarkChain(b *testing.B) { benchChain(b, false) }

// BenchmarkChainReleased is BenchmarkChain with every tensor released as
// soon as it is dead (eager's intermediates too), as PyTorch frees them:
// the best case of eager execution.
func BenchmarkChainReleased(b *testing.B) { benchChain(b, true) }

func benchChain(b *testing.B, release bool) {
	for _, n := range []int{1_000_000, 16_000_000} {
		x, a, c := torch.Randn([]int{n}), torch.Randn([]int{n}), torch.Randn([]int{n})
		b.Run(fmt.Sprintf("eager/%.0e", float64(n)), func(b *testing.B) {
			for b.Loop() {
				if !release {
					chain4(x, a, c)
					continue
				}
				t1 := x.Mul(a)
				t2 := t1.Add(c)
				t1.Release()
				t3 := t2.Relu()
				t2.Release()
				y := t3.Sigmoid()
				t3.Release()
				y.Release()
			}
		})
		b.Run(fmt.Sprintf("pipeline/%.0e", float64(n)), func(b *testing.B) {
			for b.Loop() {
				var y *torch.Tensor
				if err := torch.Pipeline(func(*torch.Pipe) error { y = chain4(x, a, c); return nil }); err != nil {
					b.Fatal(err)
				}
				if release {
					y.Release()
				}
			}
		})
		for _, t := range []*torch.Tensor{x, a, c} {
			t.Release()
		}
	}
}

// BenchmarkChainSoftmax times x*a + b (b a row bias), relu, then softmax
// along rows on 1024x1024 float32, at once (eager) and in a pipeline (the
// chain computed row by row into the softmax, no intermediate allocated),
// the results left to the garbage collector.
func BenchmarkChainSoftmax(b *testing.B) {
	x, a, c := torch.Randn([]int{1024, 1024}), torch.Randn([]int{1024, 1024}), torch.Randn([]int{1024})
	chain := func() *torch.Tensor { return x.Mul(a).Add(c).Relu().Softmax(-1) }
	b.Run("eager/1024x1024", func(b *testing.B) {
		for b.Loop() {
			chain()
		}
	})
	b.Run("pipeline/1024x1024", func(b *testing.B) {
		for b.Loop() {
			if err := torch.Pipeline(func(*torch.Pipe) error { chain(); return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, t := range []*torch.Tensor{x, a, c} {
		t.Release()
	}
}

// BenchmarkChainSmall times chain4 on small float32 tensors, eager and in
// a pipeline, the results released: what queuing an op costs where a
// fused pass saves little.
func BenchmarkChainSmall(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		x, a, c := torch.Randn([]int{n}), torch.Randn([]int{n}), torch.Randn([]int{n})
		b.Run(fmt.Sprintf("eager/%.0e", float64(n)), func(b *testing.B) {
			for b.Loop() {
				chain4(x, a, c).Release()
			}
		})
		b.Run(fmt.Sprintf("pipeline/%.0e", float64(n)), func(b *testing.B) {
			for b.Loop() {
				var y *torch.Tensor
				if err := torch.Pipeline(func(*torch.Pipe) error { y = chain4(x, a, c); return nil }); err != nil {
					b.Fatal(err)
				}
				y.Release()
			}
		})
	}
}
