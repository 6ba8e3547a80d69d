package torch_test

import (
	"fmt"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

func BenchmarkTranspose(b *testing.B) {
	x := torch.Zeros([]int{2, 3})
	b.ReportAllocs()
	for b.Loop() {
		x.Transpose(0, 1)
	}
}

func BenchmarkReshape(b *testing.B) {
	x := torch.Zeros([]int{2, 3})
	b.ReportAllocs()
	for b.Loop() {
		x.Reshape(3, 2)
	}
}

func BenchmarkZeros2x2(b *testing.B) {
	shape := []int{2, 2}
	b.ReportAllocs()
	for b.Loop() {
		torch.Zeros(shape)
	}
}

func BenchmarkAdd2x2(b *testing.B) {
	x, y := torch.Ones([]int{2, 2}), torch.Ones([]int{2, 2})
	b.ReportAllocs()
	for b.Loop() {
		x.Add(y)
	}
}

// BenchmarkPointwise times add, mul and relu that allocate their result,
// and add into an existing tensor (Add_), at three sizes. The results are
// left to the garbage collector.
func BenchmarkPointwise(b *testing.B) { benchPointwise(b, allocate) }

// BenchmarkPointwiseReleased is BenchmarkPointwise with each result
// released at once, as PyTorch frees a result whose last reference is
// dropped: the next op reuses its (cache-hot) memory. Without Release, a
// result returns to the cache only after a garbage collection.
func BenchmarkPointwiseReleased(b *testing.B) { benchPointwise(b, release) }

// BenchmarkPointwiseOut is BenchmarkPointwise with each result written into
// the same tensor (Into(out).Add(x, y), PyTorch's out=).
func BenchmarkPointwiseOut(b *testing.B) { benchPointwise(b, into) }

type namedOp struct {
	name string
	f    func() *torch.Tensor
}

// What a benchmark does with its results.
const (
	allocate = iota // leave them to the garbage collector
	release         // release them at once
	into            // write them into one tensor
)

func benchPointwise(b *testing.B, results int) {
	for _, n := range []int{100_000, 1_000_000, 16_000_000} {
		x, y := torch.Randn([]int{n}), torch.Randn([]int{n})
		out := torch.Empty([]int{n})
		ops := []namedOp{
			{"add", func() *torch.Tensor { return x.Add(y) }},
			{"mul", func() *torch.Tensor { return x.Mul(y) }},
			{"relu", x.Relu},
		}
		switch results {
		case allocate: // an in-place op has no result to release or write elsewhere
			ops = append(ops, namedOp{"add_", func() *torch.Tensor { return x.Add_(y) }})
		case into:
			ops = []namedOp{
				{"add", func() *torch.Tensor { return torch.Into(out).Add(x, y) }},
				{"mul", func() *torch.Tensor { return torch.Into(out).Mul(x, y) }},
				{"relu", func() *torch.Tensor { return torch.Into(out).Relu(x) }},
			}
		}
		for _, op := range ops {
			b.Run(fmt.Sprintf("%s/%.0e", op.name, float64(n)), func(b *testing.B) {
				for b.Loop() {
					if r := op.f(); results == release {
						r.Release()
					}
				}
			})
		}
		out.Release()
	}
}

func BenchmarkAddBroadcast1024Released(b *testing.B) {
	x, y := torch.Ones([]int{1024, 1024}), torch.Ones([]int{1024})
	for b.Loop() {
		x.Add(y).Release()
	}
}

func BenchmarkAddBroadcast1024(b *testing.B) {
	x, y := torch.Ones([]int{1024, 1024}), torch.Ones([]int{1024})
	for b.Loop() {
		x.Add(y)
	}
}

func BenchmarkSum16M(b *testing.B) {
	x := torch.Ones([]int{16 << 20})
	b.SetBytes(4 << 24)
	for b.Loop() {
		x.Sum()
	}
}

func BenchmarkSumDim1024(b *testing.B) {
	x := torch.Randn([]int{1024, 1024})
	for b.Loop() {
		x.Sum(0)
	}
}

func BenchmarkSoftmax1024(b *testing.B) {
	x := torch.Randn([]int{1024, 1024})
	for b.Loop() {
		x.Softmax(1)
	}
}

func benchMatmul(b *testing.B, n int, transposed bool) {
	x, y := torch.Randn([]int{n, n}), torch.Randn([]int{n, n})
	if transposed {
		y = y.T()
	}
	b.ReportMetric(0, "ns/op")
	start := b.Elapsed()
	for b.Loop() {
		x.MatMul(y)
	}
	secs := (b.Elapsed() - start).Seconds() / float64(b.N)
	b.ReportMetric(2*float64(n*n*n)/secs/1e9, "GFLOP/s")
}

func BenchmarkMatmul1024(b *testing.B)           { benchMatmul(b, 1024, false) }
func BenchmarkMatmul1024Transposed(b *testing.B) { benchMatmul(b, 1024, true) }
func BenchmarkMatmul128(b *testing.B)            { benchMatmul(b, 128, false) }

// BenchmarkMLPForwardBackward is one training step's forward and backward
// pass of a 784-256-10 MLP written with torch ops, batch 64, float32:
// linear, relu, linear, log_softmax and the negative log-likelihood.
func BenchmarkMLPForwardBackward(b *testing.B) {
	torch.ManualSeed(0)
	x := torch.Randn([]int{64, 784})
	target := torch.Randint(0, 10, []int{64, 1})
	w1 := torch.Randn([]int{256, 784}).MulScalar(0.03).Detach().RequiresGrad_(true)
	b1 := torch.Zeros([]int{256}).RequiresGrad_(true)
	w2 := torch.Randn([]int{10, 256}).MulScalar(0.06).Detach().RequiresGrad_(true)
	b2 := torch.Zeros([]int{10}).RequiresGrad_(true)
	b.ReportAllocs()
	for b.Loop() {
		h := torch.Linear(x, w1, b1).Relu()
		loss := torch.Linear(h, w2, b2).LogSoftmax(1).Gather(1, target).Mean().Neg()
		if err := loss.Backward(); err != nil {
			b.Fatal(err)
		}
	}
}
