package torch_test

import (
	"math"
	"testing"

	goldenfile "github.com/mindtorch/mindtorch/internal/golden"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// gradsGolden is testdata/grads.json, written by scripts/golden/grads.py
// with real PyTorch: composite expressions, their loss and the gradients of
// their inputs.
type gradsGolden struct {
	Torch string `json:"torch"`
	Cases []struct {
		Name   string              `json:"name"`
		Inputs []goldenfile.Tensor `json:"inputs"`
		Others []goldenfile.Tensor `json:"others"`
		Loss   float64             `json:"loss"`
		Grads  []goldenfile.Tensor `json:"grads"`
	} `json:"cases"`
}

// The Go twins of the cases in grads.py: in are the inputs requiring
// gradients, o the other tensors (targets, indices).
var gradCases = map[string]func(in, o []*torch.Tensor) *torch.Tensor{
	"mlp_cross_entropy": func(in, o []*torch.Tensor) *torch.Tensor {
		x, w1, b1, w2, b2 := in[0], in[1], in[2], in[3], in[4]
		logits := x.MatMul(w1).Add(b1).Relu().MatMul(w2).Add(b2)
		return logits.LogSoftmax(1).Gather(1, o[0].Unsqueeze(1)).Mean().Neg() // cross_entropy
	},
	"softmax_squared_error": func(in, _ []*torch.Tensor) *torch.Tensor {
		return in[0].Softmax(1).Sub(in[1]).PowScalar(2).Mean()
	},
	"reused_inputs": func(in, _ []*torch.Tensor) *torch.Tensor {
		a, b := in[0], in[1]
		out := a.Mul(b).Add(a.Exp().Mul(a)).Sub(b.Div(a.Mul(a).AddScalar(1))).Add(a.Tanh().PowScalar(2).Mul(b.Sigmoid()))
		return out.Sum()
	},
	"views": func(in, _ []*torch.Tensor) *torch.Tensor {
		x := in[0]
		y := x.T().Reshape(6, 2).Slice(0, 1, 5, 2).Mul(x.Select(0, 0).Slice(0, 0, 2, 1))
		z := x.Permute(1, 0).Unsqueeze(0).Expand(2, 4, 3).Sum(0)
		w := x.Narrow(1, 1, 2).Transpose(0, 1).Contiguous().View(-1)
		return y.Sum().Add(z.Mul(z).Sum()).Add(w.Mul(torch.Arange(6, torch.WithDType(torch.Float64))).Sum()).
			Add(x.Select(1, 3).Prod())
	},
	"inplace_ops": func(in, _ []*torch.Tensor) *torch.Tensor {
		x, w := in[0], in[1]
		h := x.MulScalar(2)
		h.Add_(w)
		h.Mul_(w)
		h.Select(0, 0).MulScalar_(3)
		h.Select(1, 1).Zero_()
		h.Sigmoid_()
		return h.Sum().Add(h.Mul(h).Sum())
	},
	"copy_into_views": func(in, _ []*torch.Tensor) *torch.Tensor {
		x, s := in[0], in[1]
		buf := torch.Zeros([]int{5, 3}, torch.WithDType(torch.Float64))
		buf.Narrow(0, 1, 3).Copy_(x)
		buf.Select(1, 0).Fill_(1)
		buf.Select(1, 2).Mul_(s)
		return buf.Mul(buf.Flip(0)).Sum()
	},
	"layer_norm": func(in, _ []*torch.Tensor) *torch.Tensor {
		x, g, b := in[0], in[1], in[2]
		mu := x.MeanKeepDim(-1)
		v := x.VarCorrection(0, true, -1)
		return x.Sub(mu).Div(v.AddScalar(1e-5).Sqrt()).Mul(g).Add(b).PowScalar(2).Mean()
	},
	"attention": func(in, _ []*torch.Tensor) *torch.Tensor {
		q, k, v := in[0], in[1], in[2]
		a := q.MatMul(k.Transpose(-1, -2)).DivScalar(2).Softmax(-1).MatMul(v)
		return a.Mul(a).Sum()
	},
	"ties": func(in, _ []*torch.Tensor) *torch.Tensor {
		x := in[0]
		m, _ := x.MaxDim(1, false)
		return x.Amax(1).Sum().Add(m.Sum()).Add(x.Max()).Add(x.Amin(0).Sum()).Add(x.Min())
	},
	"norms": func(in, _ []*torch.Tensor) *torch.Tensor {
		x := in[0]
		return x.Norm(2, 1).Sum().Add(x.Std(0).Sum()).Add(x.LogSumExp(1).Sum()).Add(x.Abs().Sum().MulScalar(0.1)).Add(x.Var())
	},
	"clamps": func(in, _ []*torch.Tensor) *torch.Tensor {
		x, lo := in[0], in[1]
		y := x.Clamp(-0.5, 0.7).Add(torch.Where(x.GtScalar(0), x.Mul(x), x.Neg())).Add(x.MaskedFill(x.LtScalar(-1), 0.5))
		y = y.Add(x.ClampTensor(lo, lo.AddScalar(1)))
		return y.Mul(torch.Arange(12, torch.WithDType(torch.Float64)).View(3, 4)).Sum()
	},
	"cat_gather_scatter": func(in, o []*torch.Tensor) *torch.Tensor {
		a, b, idx := in[0], in[1], o[0]
		c := torch.Cat([]*torch.Tensor{a, b}, 1)
		g := c.Gather(1, idx)
		s := torch.Zeros([]int{2, 5}, torch.WithDType(torch.Float64)).ScatterAdd(1, idx, g.Mul(g))
		t := torch.Stack([]*torch.Tensor{a, a.MulScalar(2)}, 0).Sum(0)
		return s.Sum().Add(t.Mul(c.Narrow(1, 0, 3)).Sum()).Add(c.IndexSelect(1, torch.FromSlice([]int64{0, 0, 4})).PowScalar(3).Sum())
	},
	"sort_cumsum_matmul_1d": func(in, _ []*torch.Tensor) *torch.Tensor {
		x, v, m := in[0], in[1], in[2]
		s, _ := x.Sort(0, false)
		out := s.Mul(torch.Arange(5, torch.WithDType(torch.Float64))).Sum().Add(x.Cumsum(0).Dot(v)).Add(x.Cumprod(0).Sum())
		return out.Add(v.MatMul(m).MatMul(x)).Add(m.MatMul(x).Sum()).Add(v.MatMul(m).PowScalar(2).Sum())
	},
}

func TestGradsMatchPyTorch(t *testing.T) {
	var g gradsGolden
	if err := goldenfile.Load("grads.json", &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) != len(gradCases) {
		t.Errorf("%d golden cases, %d Go twins", len(g.Cases), len(gradCases))
	}
	for _, c := range g.Cases {
		t.Run(c.Name, func(t *testing.T) {
			f := gradCases[c.Name]
			if f == nil {
				t.Fatalf("no Go twin for %s", c.Name)
			}
			in := make([]*torch.Tensor, len(c.Inputs))
			for i, x := range c.Inputs {
				in[i] = x.Tensor().RequiresGrad_(true)
			}
			o := make([]*torch.Tensor, len(c.Others))
			for i, x := range c.Others {
				o[i] = x.Tensor()
			}
			loss := f(in, o)
			got, err := loss.Item()
			if err != nil {
				t.Fatal(err)
			}
			if !close64(got, c.Loss) {
				t.Errorf("loss = %.17g, PyTorch %.17g", got, c.Loss)
			}
			if err := loss.Backward(); err != nil {
				t.Fatal(err)
			}
			for i, want := range c.Grads {
				gr := in[i].Grad()
				if gr == nil {
					t.Errorf("input %d: no gradient", i)
					continue
				}
				vals, err := torch.ToSlice[float64](gr)
				if err != nil {
					t.Fatal(err)
				}
				for j := range want.Data {
					if !close64(vals[j], want.Data[j]) {
						t.Errorf("input %d grad[%d] = %.17g, PyTorch %.17g", i, j, vals[j], want.Data[j])
					}
				}
			}
		})
	}
}

// close64 compares float64 results that differ only by summation order.
func close64(a, b float64) bool {
	return math.Abs(a-b) <= 1e-10+1e-9*math.Abs(b)
}
