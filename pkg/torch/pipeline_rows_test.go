package torch_test

import (
	"fmt"
	"testing"

	"github.com/mindtorch/mindtorch/internal/conformance"
	"github.com/mindtorch/mindtorch/pkg/backends/cpu"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// rowReductions are the reductions along the last dims that join a chain
// on the CPU, and one that does not (cumsum), as a control.
var rowReductions = map[string]func(y *torch.Tensor) *torch.Tensor{
	"sum":         func(y *torch.Tensor) *torch.Tensor { return y.Sum(-1) },
	"sum keepdim": func(y *torch.Tensor) *torch.Tensor { return y.SumKeepDim(-1) },
	"mean":        func(y *torch.Tensor) *torch.Tensor { return y.Mean(-1) },
	"amax":        func(y *torch.Tensor) *torch.Tensor { return y.Amax(-1) },
	"amin":        func(y *torch.Tensor) *torch.Tensor { return y.Amin(-1) },
	"logsumexp":   func(y *torch.Tensor) *torch.Tensor { return y.LogSumExp(-1) },
	"softmax":     func(y *torch.Tensor) *torch.Tensor { return y.Softmax(-1) },
	"log_softmax": func(y *torch.Tensor) *torch.Tensor { return y.LogSoftmax(-1) },
	"cumsum":      func(y *torch.Tensor) *torch.Tensor { return y.Cumsum(-1) },
}

// TestPipelineChainRowReductions checks chains that end in a reduction or
// a softmax along the last dimension, which the CPU fuses: the values have
// the bits of the ops run one by one, for rows shorter and longer than a
// block (512) and than a pairwise sum's leaf (16384), one row and many,
// float32 and float64, a broadcast bias among the inputs, with NaN and
// infinities, and with the reduced result also read outside the chain.
func TestPipelineChainRowReductions(t *testing.T) {
	chains := map[string]func(x, a, bias *torch.Tensor, red func(*torch.Tensor) *torch.Tensor) []*torch.Tensor{
		"mul-add-relu": func(x, a, bias *torch.Tensor, red func(*torch.Tensor) *torch.Tensor) []*torch.Tensor {
			return []*torch.Tensor{red(x.Mul(a).Add(bias).Relu())}
		},
		"exp": func(x, a, bias *torch.Tensor, red func(*torch.Tensor) *torch.Tensor) []*torch.Tensor {
			return []*torch.Tensor{red(x.MulScalar(0.25).Exp())}
		},
		"reduced result read": func(x, a, bias *torch.Tensor, red func(*torch.Tensor) *torch.Tensor) []*torch.Tensor {
			y := x.Sub(a).Tanh()
			return []*torch.Tensor{red(y), y}
		},
		"middle result": func(x, a, bias *torch.Tensor, red func(*torch.Tensor) *torch.Tensor) []*torch.Tensor {
			m := x.Mul(a)
			return []*torch.Tensor{m.Add(bias).Sigmoid(), red(m)}
		},
	}
	shapes := [][2]int{{2, 40}, {3, 511}, {4, 512}, {5, 513}, {100, 64}, {1000, 3}, {4097, 8}, {7, 5000}, {1, 3000},
		{2, 16385}, {300, 300}}
	// Finite inputs, whose rows' values show any other order of
	// arithmetic in their bits, and inputs with NaN and infinities.
	inputs := map[string]func(seed uint64, dt torch.DType, shape ...int) *torch.Tensor{
		"finite": func(seed uint64, dt torch.DType, shape ...int) *torch.Tensor {
			n := 1
			for _, s := range shape {
				n *= s
			}
			return finiteInput(seed, dt, n).Reshape(shape...)
		},
		"specials": pipelineInput,
	}
	for _, dt := range []torch.DType{torch.Float32, torch.Float64} {
		for _, sh := range shapes {
			for iname, input := range inputs {
				rows, cols := sh[0], sh[1]
				x, a := input(1, dt, rows, cols), input(2, dt, rows, cols)
				bias := input(3, dt, cols)
				for cname, chain := range chains {
					for rname, red := range rowReductions {
						name := fmt.Sprintf("%s %dx%d %s, %s then %s", dt, rows, cols, iname, cname, rname)
						want := chain(x, a, bias, red)
						var got []*torch.Tensor
						if err := torch.Pipeline(func(*torch.Pipe) error { got = chain(x, a, bias, red); return nil }); err != nil {
							t.Fatalf("%s: %v", name, err)
						}
						for i := range want {
							if err := conformance.SameBits(want[i], got[i]); err != nil {
								t.Fatalf("%s, result %d: %v", name, i, err)
							}
						}
					}
				}
			}
		}
	}
}

// TestPipelineRowsAlignedAsAlone checks rows that start anywhere in a
// vector (30, 1000 and 70 elements), with ops whose vectorised loops and
// remainders may give a NaN a different sign (neg, relu, tanh): each
// element of the fused chain takes the part of each loop it takes when the
// op runs alone, so the reductions get eager's bits, on one thread and two.
func TestPipelineRowsAlignedAsAlone(t *testing.T) {
	for _, sh := range [][]int{{40, 30}, {17, 1000}, {6, 5, 70}, {700, 70}} {
		for _, dt := range []torch.DType{torch.Float32, torch.Float64} {
			x, a := pipelineInput(1, dt, sh...), pipelineInput(2, dt, sh...)
			bias := pipelineInput(3, dt, sh[len(sh)-1])
			for rname, red := range rowReductions {
				chain := func() []*torch.Tensor {
					y := x.Mul(a).Add(bias).Neg().Relu()
					return []*torch.Tensor{red(y), red(x.Sub(a).Tanh().Neg()), y}
				}
				want := chain()
				var got []*torch.Tensor
				if err := torch.Pipeline(func(*torch.Pipe) error { got = chain(); return nil }); err != nil {
					t.Fatal(err)
				}
				for i := range want {
					if err := conformance.SameBits(want[i], got[i]); err != nil {
						t.Fatalf("%s %v, %s, result %d: %v", dt, sh, rname, i, err)
					}
				}
			}
		}
	}
}

// TestPipelineRowReductionDims checks reductions over more than the last
// dimension, over a dim that is not last (not fused: the values must
// still be eager's), and a softmax along a middle dim.
func TestPipelineRowReductionDims(t *testing.T) {
	x, a := pipelineInput(4, torch.Float32, 6, 5, 70), pipelineInput(5, torch.Float32, 6, 5, 70)
	cases := map[string]func(y *torch.Tensor) *torch.Tensor{
		"sum(1,2)":      func(y *torch.Tensor) *torch.Tensor { return y.Sum(1, 2) },
		"mean(-2,-1)":   func(y *torch.Tensor) *torch.Tensor { return y.Mean(-2, -1) },
		"amax(0)":       func(y *torch.Tensor) *torch.Tensor { return y.Amax(0) },
		"sum(0,2)":      func(y *torch.Tensor) *torch.Tensor { return y.Sum(0, 2) },
		"softmax(1)":    func(y *torch.Tensor) *torch.Tensor { return y.Softmax(1) },
		"logsumexp(2)":  func(y *torch.Tensor) *torch.Tensor { return y.LogSumExp(2) },
		"softmax(-1)":   func(y *torch.Tensor) *torch.Tensor { return y.Softmax(-1) },
		"sum keepdim 2": func(y *torch.Tensor) *torch.Tensor { return y.SumKeepDim(2) },
	}
	for name, red := range cases {
		want := red(x.Mul(a).Relu())
		var got *torch.Tensor
		if err := torch.Pipeline(func(*torch.Pipe) error { got = red(x.Mul(a).Relu()); return nil }); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := conformance.SameBits(want, got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// TestPipelineRowReductionsAllocateOnlyTheirResult checks that a chain
// ending in each of the reductions that join it, inside a pipeline,
// allocates memory for the reduction's result only (the chain's values
// exist only row by row), and that cumsum, which does not join, stores the
// chain's result.
func TestPipelineRowReductionsAllocateOnlyTheirResult(t *testing.T) {
	const rows, cols = 256, 1024
	x, a := finiteInput(1, torch.Float32, rows*cols).Reshape(rows, cols), finiteInput(2, torch.Float32, cols)
	if err := torch.Pipeline(func(*torch.Pipe) error { return nil }); err != nil { // warm the pipeline's own paths
		t.Fatal(err)
	}
	measure := func(f func() *torch.Tensor) int64 {
		before := cpu.Stats()
		var y *torch.Tensor
		if err := torch.Pipeline(func(*torch.Pipe) error { y = f(); return nil }); err != nil {
			t.Fatal(err)
		}
		if err := y.Err(); err != nil {
			t.Fatal(err)
		}
		after := cpu.Stats()
		y.Release()
		return (after.Hits + after.Misses) - (before.Hits + before.Misses)
	}
	for name, red := range rowReductions {
		alone := measure(func() *torch.Tensor { return red(x) })
		chained := measure(func() *torch.Tensor { return red(x.Mul(a).AddScalar(1).Relu()) })
		if joins := name != "cumsum"; joins != (chained == alone) {
			t.Errorf("a chain then %s: %d allocations of cached size, %s alone %d", name, chained, name, alone)
		}
	}
}

// TestPipelineBroadcastJoinsOnlyWholeVectors checks that a step with a
// broadcast input joins a chain only when the rows it walks are whole
// vectors (16 floats), so that no block of the chain cuts a row where the
// op alone would not start a loop: a bias of 1024 joins, one of 1000 does
// not (the chain's result is then stored), and both give eager's bits.
func TestPipelineBroadcastJoinsOnlyWholeVectors(t *testing.T) {
	for _, cols := range []int{1024, 1000} {
		rows := 64
		x := finiteInput(1, torch.Float32, rows*cols).Reshape(rows, cols)
		bias := finiteInput(2, torch.Float32, cols)
		chain := func() *torch.Tensor { return x.MulScalar(2).Add(bias).Relu().Softmax(-1) }
		want := chain()
		before := cpu.Stats()
		var got *torch.Tensor
		if err := torch.Pipeline(func(*torch.Pipe) error { got = chain(); return nil }); err != nil {
			t.Fatal(err)
		}
		if err := conformance.SameBits(want, got); err != nil {
			t.Fatalf("bias of %d: %v", cols, err)
		}
		after := cpu.Stats()
		allocs := (after.Hits + after.Misses) - (before.Hits + before.Misses)
		if joined := allocs == 1; joined != (cols%16 == 0) {
			t.Errorf("bias of %d: %d allocations of cached size (1: the softmax's result alone)", cols, allocs)
		}
	}
}
