package torch_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

func TestLinalgMoreGradCheck(t *testing.T) {
	torch.ManualSeed(4)
	runGradCases(t, []gradCase{
		{"trace", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Trace() }, []*torch.Tensor{leaf(3, 4)}, "TraceBackward0"},
		{"kron", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Kron(in[1]) }, []*torch.Tensor{leaf(2, 3), leaf(2)}, ""},
		{"tensordot", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Tensordot(in[1], []int{2, 0}, []int{0, 2}) }, []*torch.Tensor{leaf(2, 3, 4), leaf(4, 2, 2)}, ""},
		{"tensordot size-1 contraction", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Tensordot(in[1], []int{0}, []int{0}) }, []*torch.Tensor{leaf(3, 2), leaf(1, 2)}, ""},
		{"tensordot n", func(in ...*torch.Tensor) *torch.Tensor { return in[0].TensordotN(in[1], 1) }, []*torch.Tensor{leaf(2, 3), leaf(3, 2)}, ""},
		{"einsum matmul", func(in ...*torch.Tensor) *torch.Tensor { return torch.Einsum("ij,jk->ik", in...) }, []*torch.Tensor{leaf(2, 3), leaf(3, 2)}, ""},
		{"einsum batched ellipsis", func(in ...*torch.Tensor) *torch.Tensor { return torch.Einsum("...ij,...jk", in...) }, []*torch.Tensor{leaf(2, 2, 3), leaf(3, 2)}, ""},
		{"einsum diagonal sum", func(in ...*torch.Tensor) *torch.Tensor { return torch.Einsum("iij,j->i", in...) }, []*torch.Tensor{leaf(2, 2, 3), leaf(3)}, ""},
		{"einsum three operands", func(in ...*torch.Tensor) *torch.Tensor { return torch.Einsum("ab,bc,cd->ad", in...) }, []*torch.Tensor{leaf(2, 2), leaf(2, 3), leaf(3, 2)}, ""},
		{"einsum broadcast", func(in ...*torch.Tensor) *torch.Tensor { return torch.Einsum("ij,kj->ik", in...) }, []*torch.Tensor{leaf(2, 3), leaf(2, 1)}, ""},
		{"cross", func(in ...*torch.Tensor) *torch.Tensor { return in[0].Cross(in[1], -1) }, []*torch.Tensor{leaf(2, 3), leaf(1, 3)}, "LinalgCrossBackward0"},
		{"addmv", func(in ...*torch.Tensor) *torch.Tensor { return torch.Addmv(in[0], in[1], in[2], 0.5, 2) }, []*torch.Tensor{leaf(1), leaf(3, 2), leaf(2)}, "AddmvBackward0"},
		{"addmv beta 0", func(in ...*torch.Tensor) *torch.Tensor { return torch.Addmv(in[0], in[1], in[2], 0, 1) }, []*torch.Tensor{leaf(3), leaf(3, 2), leaf(2)}, "AddmvBackward0"},
		{"addr", func(in ...*torch.Tensor) *torch.Tensor { return torch.Addr(in[0], in[1], in[2], 2, -1.5) }, []*torch.Tensor{leaf(3, 1), leaf(3), leaf(2)}, "AddrBackward0"},
		{"vector_norm 2", func(in ...*torch.Tensor) *torch.Tensor { return in[0].LinalgVectorNorm(2, []int{1}, false) }, []*torch.Tensor{leaf(2, 3)}, "LinalgVectorNormBackward0"},
		{"vector_norm 3 keepdim", func(in ...*torch.Tensor) *torch.Tensor { return in[0].LinalgVectorNorm(3, []int{0}, true) }, []*torch.Tensor{leaf(2, 3)}, "LinalgVectorNormBackward0"},
		{"vector_norm -0.5 all", func(in ...*torch.Tensor) *torch.Tensor { return in[0].LinalgVectorNorm(-0.5, nil, false) }, []*torch.Tensor{positive(2, 3)}, "LinalgVectorNormBackward0"},
		{"vector_norm inf", func(in ...*torch.Tensor) *torch.Tensor { return in[0].LinalgVectorNorm(math.Inf(1), []int{1}, false) }, []*torch.Tensor{leaf(2, 3)}, "LinalgVectorNormBackward0"},
		{"matrix_norm fro", func(in ...*torch.Tensor) *torch.Tensor { return in[0].LinalgMatrixNorm("fro", [2]int{-2, -1}, false) }, []*torch.Tensor{leaf(2, 3)}, "LinalgVectorNormBackward0"},
		{"matrix_norm 1", func(in ...*torch.Tensor) *torch.Tensor { return in[0].LinalgMatrixNorm(1, [2]int{0, 2}, false) }, []*torch.Tensor{leaf(3, 2, 4)}, "AmaxBackward0"},
		{"matrix_norm -inf keepdim", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].LinalgMatrixNorm(math.Inf(-1), [2]int{1, 0}, true)
		}, []*torch.Tensor{leaf(3, 4)}, "AminBackward0"},
	})
}

// TestLinalgMoreDoubleBackward checks that a recorded node (addmv) gives
// second derivatives through create_graph.
func TestLinalgMoreDoubleBackward(t *testing.T) {
	x, w := leaf(3), leaf(3)
	y := torch.Addmv(torch.Zeros([]int{3}, torch.WithDType(torch.Float64)), x.Outer(x), w, 1, 1).Sum()
	g, err := torch.Grad([]*torch.Tensor{y}, []*torch.Tensor{w}, torch.GradOptions{CreateGraph: true})
	if err != nil {
		t.Fatal(err)
	}
	// dy/dw = x * sum(x); its sum's gradient for x is sum(x) + sum(x) per element.
	gg, err := torch.Grad([]*torch.Tensor{g[0].Sum()}, []*torch.Tensor{x}, torch.GradOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := x.Sum().MulScalar(2).Expand(3)
	if !torch.AllClose(gg[0], want, 1e-12, 1e-12, false) {
		t.Fatalf("second derivative %v, want %v", gg[0], want)
	}
}

// TestLinalgMoreErrors checks errors naming the op, nil and failed inputs
// passed on, and the singular-value norms refused, without panics.
func TestLinalgMoreErrors(t *testing.T) {
	x := torch.Zeros([]int{3, 3})
	v := torch.Zeros([]int{3})
	bad := x.View(7)
	cases := []struct {
		name, op string
		kind     error
		got      *torch.Tensor
	}{
		{"trace 1-D", "trace", torch.ErrShape, v.Trace()},
		{"trace bool", "trace", torch.ErrDType, x.ToDType(torch.Bool).Trace()},
		{"kron nil", "kron", torch.ErrArgument, x.Kron(nil)},
		{"tensordot lengths", "tensordot", torch.ErrArgument, x.Tensordot(x, []int{0}, []int{0, 1})},
		{"tensordot repeated", "tensordot", torch.ErrArgument, x.Tensordot(x, []int{0, 0}, []int{0, 1})},
		{"tensordot dim", "tensordot", torch.ErrIndex, x.Tensordot(x, []int{math.MaxInt}, []int{0})},
		{"tensordot sizes", "tensordot", torch.ErrShape, x.Tensordot(torch.Zeros([]int{2, 2}), []int{0}, []int{0})},
		{"tensordot dtypes", "tensordot", torch.ErrDType, x.Tensordot(x.ToDType(torch.Float64), []int{0}, []int{0})},
		{"tensordot n negative", "tensordot", torch.ErrArgument, x.TensordotN(x, -1)},
		{"tensordot n huge", "tensordot", torch.ErrIndex, x.TensordotN(x, math.MaxInt)},
		{"einsum no operand", "einsum", torch.ErrArgument, torch.Einsum("")},
		{"einsum nil", "einsum", torch.ErrArgument, torch.Einsum("i", nil)},
		{"einsum bad subscript", "einsum", torch.ErrArgument, torch.Einsum("i1", x)},
		{"einsum sizes", "einsum", torch.ErrShape, torch.Einsum("ij,jk", x, torch.Zeros([]int{2, 2}))},
		{"einsum dtypes", "einsum", torch.ErrDType, torch.Einsum("ij,jk", x, x.ToDType(torch.Float64))},
		{"einsum unicode", "einsum", torch.ErrArgument, torch.Einsum("ïj", x)},
		{"cross ranks", "linalg.cross", torch.ErrShape, x.Cross(v, -1)},
		{"cross 0-dim", "linalg.cross", torch.ErrIndex, torch.Scalar(1.0).Cross(torch.Scalar(1.0), 0)},
		{"cross default none", "cross", torch.ErrShape, torch.Zeros([]int{2, 2}).CrossDefault(torch.Zeros([]int{2, 2}))},
		{"addmv shapes", "addmv", torch.ErrShape, torch.Addmv(v, x, torch.Zeros([]int{2}), 1, 1)},
		{"addmv scalar type", "addmv", torch.ErrArgument, torch.Addmv(v, x, v, "a", 1)},
		{"addr 2-D", "addr", torch.ErrShape, torch.Addr(x, x, v, 1, 1)},
		{"addr int beta float", "addr", torch.ErrArgument, torch.Addr(x.ToDType(torch.Int32), v.ToDType(torch.Int32), v.ToDType(torch.Int32), 0.5, 1)},
		{"addr nil", "addr", torch.ErrArgument, torch.Addr(x, v, nil, 1, 1)},
		{"vector_norm int", "linalg.vector_norm", torch.ErrDType, x.ToDType(torch.Int64).LinalgVectorNorm(2, nil, false)},
		{"vector_norm empty inf", "linalg.vector_norm", torch.ErrIndex, torch.Zeros([]int{0, 3}).LinalgVectorNorm(math.Inf(1), nil, false)},
		{"vector_norm dims", "linalg.vector_norm", torch.ErrIndex, x.LinalgVectorNorm(2, []int{math.MinInt}, false)},
		{"matrix_norm 1-D", "linalg.matrix_norm", torch.ErrShape, v.LinalgMatrixNorm("fro", [2]int{-2, -1}, false)},
		{"matrix_norm ord", "linalg.matrix_norm", torch.ErrArgument, x.LinalgMatrixNorm(3, [2]int{-2, -1}, false)},
		{"matrix_norm ord type", "linalg.matrix_norm", torch.ErrArgument, x.LinalgMatrixNorm(true, [2]int{-2, -1}, false)},
		{"matrix_norm nuc half", "linalg.matrix_norm", torch.ErrDType, x.ToDType(torch.Float16).LinalgMatrixNorm("nuc", [2]int{-2, -1}, false)},
		{"matrix_norm 2 bfloat16", "linalg.matrix_norm", torch.ErrDType, x.ToDType(torch.BFloat16).LinalgMatrixNorm(2, [2]int{-2, -1}, false)},
		{"matrix_norm -2 empty", "linalg.matrix_norm", torch.ErrIndex, torch.Zeros([]int{0, 3}).LinalgMatrixNorm(-2.0, [2]int{-2, -1}, false)},
		{"failed input", "view", torch.ErrShape, bad.Trace()},
		{"failed einsum operand", "view", torch.ErrShape, torch.Einsum("ij,j", x, bad)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.got.Err()
			var e *torch.Error
			if !errors.As(err, &e) || e.Op != c.op || !errors.Is(err, c.kind) {
				t.Fatalf("error %v, want one of op %s and kind %v", err, c.op, c.kind)
			}
		})
	}
}

func TestEinsumMessages(t *testing.T) {
	x := torch.Zeros([]int{3, 4})
	for eq, want := range map[string]string{
		"ij,jk":   "einsum(): fewer operands were provided than specified in the equation",
		"ii":      "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 4 != 3",
		"ij->ii":  "einsum(): output subscript i appears more than once in the output",
		"ijk...":  "einsum(): the number of subscripts in the equation (3) is more than the number of dimensions (2) for operand 0",
		"ij-->ji": "einsum(): invalid subscript given at index 2 in the equation string, subscripts must be in [a-zA-Z]",
	} {
		if err := torch.Einsum(eq, x).Err(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", eq, err, want)
		}
	}
}

// TestLinalgMoreMeta checks results on the meta device: shapes and dtypes
// only, with no data read (beta 0 in addr and addmv included).
func TestLinalgMoreMeta(t *testing.T) {
	m := func(shape ...int) *torch.Tensor { return torch.Empty(shape, torch.WithDevice("meta")) }
	for name, got := range map[string]*torch.Tensor{
		"einsum":      torch.Einsum("bij,bjk->bki", m(2, 3, 4), m(2, 4, 5)),
		"addmv":       torch.Addmv(m(3), m(3, 4), m(4), 0, 1),
		"addr":        torch.Addr(m(3, 4), m(3), m(4), 0, 2),
		"trace":       m(3, 3).Trace(),
		"matrix_norm": m(2, 3, 4).LinalgMatrixNorm(math.Inf(1), [2]int{1, 2}, false),
	} {
		if err := got.Err(); err != nil || !got.IsMeta() {
			t.Errorf("%s: %v on %v", name, err, got.Device())
		}
	}
}

func ExampleEinsum() {
	a := torch.FromSlice([]float64{1, 2, 3, 4}).Reshape(2, 2)
	b := torch.FromSlice([]float64{1, 0, 0, 1}).Reshape(2, 2)
	fmt.Println(torch.Einsum("ij,jk->ik", a, b))
	fmt.Println(torch.Einsum("ii", a))
	// Output:
	// tensor([[1., 2.],
	//         [3., 4.]], dtype=torch.float64)
	// tensor(5., dtype=torch.float64)
}
