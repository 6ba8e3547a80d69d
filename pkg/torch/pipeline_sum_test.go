package torch_test

import (
	"math/rand/v2"
	"testing"

	"github.com/mindtorch/mindtorch/internal/conformance"
	"github.com/mindtorch/mindtorch/pkg/backends/cpu"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// finiteInput is a tensor of n normal values: sums of them are finite, so
// that a different order of addition shows in the bits.
func finiteInput(seed uint64, dt torch.DType, n int) *torch.Tensor {
	r := rand.New(rand.NewPCG(seed, 3))
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64() * 3
	}
	return torch.FromSlice(v).ToDType(dt)
}

// TestPipelineChainSums checks chains that end in a sum or a mean of all
// of a result, which the CPU fuses: the value has the bits of the ops run
// one by one, on sizes around the pairwise sum's leaves (16384) and the
// split across threads (32768), with a summed result that is also read
// outside the chain, and with NaN and infinities among the inputs.
func TestPipelineChainSums(t *testing.T) {
	chains := map[string]func(x, a, b *torch.Tensor) []*torch.Tensor{
		"mul-add-relu-sum": func(x, a, b *torch.Tensor) []*torch.Tensor {
			return []*torch.Tensor{x.Mul(a).Add(b).Relu().Sum()}
		},
		"sigmoid-mean": func(x, a, b *torch.Tensor) []*torch.Tensor {
			return []*torch.Tensor{x.MulScalar(0.5).Sigmoid().Mean()}
		},
		"square-sum, square read": func(x, a, b *torch.Tensor) []*torch.Tensor {
			sq := x.Sub(a).Square()
			return []*torch.Tensor{sq.Sum(), sq}
		},
		"sum of a middle result": func(x, a, b *torch.Tensor) []*torch.Tensor {
			m := x.Mul(a)
			return []*torch.Tensor{m.Add(b).Tanh(), m.Sum()}
		},
	}
	for _, dt := range []torch.DType{torch.Float32, torch.Float64} {
		for _, n := range []int{65, 1000, 16384, 16385, 32768, 40_003, 100_003, 1_000_003} {
			x, a, b := finiteInput(1, dt, n), finiteInput(2, dt, n), finiteInput(3, dt, n)
			for name, chain := range chains {
				want := chain(x, a, b)
				var got []*torch.Tensor
				if err := torch.Pipeline(func(*torch.Pipe) error { got = chain(x, a, b); return nil }); err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if err := conformance.SameBits(want[i], got[i]); err != nil {
						t.Fatalf("%s %s n=%d, result %d: %v", dt, name, n, i, err)
					}
				}
			}
		}
	}
	// Special values: NaN and infinities reach the sum as they do alone.
	for _, n := range []int{3000, 70_000} {
		x, a := pipelineInput(5, torch.Float32, n), pipelineInput(6, torch.Float32, n)
		want := x.Mul(a).Relu().Sum()
		var got *torch.Tensor
		if err := torch.Pipeline(func(*torch.Pipe) error { got = x.Mul(a).Relu().Sum(); return nil }); err != nil {
			t.Fatal(err)
		}
		if err := conformance.SameBits(want, got); err != nil {
			t.Fatalf("specials n=%d: %v", n, err)
		}
	}
}

// TestPipelineChainSumAllocatesNothing checks that a chain ending in a sum
// of its last result, inside a pipeline, allocates no memory for its
// results: the values exist only block by block.
func TestPipelineChainSumAllocatesNothing(t *testing.T) {
	n := 1 << 20
	x, a, b := finiteInput(1, torch.Float32, n), finiteInput(2, torch.Float32, n), finiteInput(3, torch.Float32, n)
	// What the result alone costs: nothing, or one allocation when
	// MINDTORCH_CPU_CACHE_DEBUG sends every size through the cache.
	base := cpu.Stats()
	one := torch.Zeros([]int{})
	if err := one.Err(); err != nil {
		t.Fatal(err)
	}
	after1 := cpu.Stats()
	resultCost := (after1.Hits + after1.Misses) - (base.Hits + base.Misses)
	for _, name := range []string{"sum", "mean"} {
		before := cpu.Stats()
		var s *torch.Tensor
		if err := torch.Pipeline(func(*torch.Pipe) error {
			y := x.Mul(a).Add(b).Relu()
			if name == "sum" {
				s = y.Sum()
			} else {
				s = y.Mean()
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Item(); err != nil {
			t.Fatal(err)
		}
		after := cpu.Stats()
		if d := (after.Hits + after.Misses) - (before.Hits + before.Misses); d != resultCost {
			t.Errorf("%s: %d allocations of cached size, want %d (the result's)", name, d, resultCost)
		}
	}
}
