package nn_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/internal/golden"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// nnGolden is testdata/nn.json, written by scripts/golden/nn.py.
type nnGolden struct {
	Init   map[string][]golden.Tensor `json:"init"`
	Losses []struct {
		Name   string          `json:"name"`
		Input  golden.Tensor   `json:"input"`
		Others []golden.Tensor `json:"others"`
		Loss   golden.Tensor   `json:"loss"`
		Grad   golden.Tensor   `json:"grad"`
	} `json:"losses"`
}

func load(t *testing.T) *nnGolden {
	t.Helper()
	var g nnGolden
	if err := golden.Load("nn.json", &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

// values returns t's elements as float64.
func values(t *testing.T, x *torch.Tensor) []float64 {
	t.Helper()
	v, err := torch.ToSlice[float64](x.ToDType(torch.Float64))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func expectClose(t *testing.T, what string, got *torch.Tensor, want golden.Tensor, atol, rtol float64) {
	t.Helper()
	if g := got.Shape(); len(g) != len(want.Shape) {
		t.Errorf("%s: shape %v, PyTorch %v", what, g, want.Shape)
		return
	}
	v := values(t, got)
	if len(v) != len(want.Data) {
		t.Fatalf("%s: %d values, PyTorch %d", what, len(v), len(want.Data))
	}
	for i := range v {
		if !golden.Close(v[i], want.Data[i], atol, rtol) {
			t.Errorf("%s[%d] = %.9g, PyTorch %.9g", what, i, v[i], want.Data[i])
		}
	}
}

func TestInitMatchesPyTorch(t *testing.T) {
	g := load(t)
	make := map[string]func() []*torch.Tensor{
		"linear_5_3": func() []*torch.Tensor {
			torch.ManualSeed(0)
			l := nn.NewLinear(5, 3)
			return []*torch.Tensor{l.Weight, l.Bias}
		},
		"xavier_uniform_4_6_gain2": func() []*torch.Tensor {
			torch.ManualSeed(3)
			return []*torch.Tensor{nn.XavierUniform_(torch.Empty([]int{4, 6}), 2)}
		},
		"kaiming_normal_3_2_2_fan_out_relu": func() []*torch.Tensor {
			torch.ManualSeed(4)
			return []*torch.Tensor{nn.KaimingNormal_(torch.Empty([]int{3, 2, 2}), 0, "fan_out", "relu")}
		},
		"embedding_4_3": func() []*torch.Tensor {
			torch.ManualSeed(5)
			return []*torch.Tensor{nn.NewEmbedding(4, 3).Weight}
		},
	}
	if len(make) != len(g.Init) {
		t.Errorf("%d Go cases, %d golden", len(make), len(g.Init))
	}
	for name, want := range g.Init {
		t.Run(name, func(t *testing.T) {
			got := make[name]()
			for i := range want {
				expectClose(t, name, got[i], want[i], 0, 0)
			}
		})
	}
}

func TestLossesMatchPyTorch(t *testing.T) {
	g := load(t)
	cases := map[string]func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor{
		"cross_entropy": func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor { return nn.CrossEntropy(a, o[0]) },
		"cross_entropy_weight_sum": func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor {
			return nn.CrossEntropy(a, o[0], nn.WithWeight(classWeight()), nn.WithReduction(nn.Sum))
		},
		"cross_entropy_weight_mean": func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor {
			return nn.CrossEntropy(a, o[0], nn.WithWeight(classWeight()))
		},
		"cross_entropy_smoothing": func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor {
			return nn.CrossEntropy(a, o[0], nn.WithLabelSmoothing(0.2))
		},
		"cross_entropy_smoothing_weight": func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor {
			return nn.CrossEntropy(a, o[0], nn.WithWeight(classWeight()), nn.WithLabelSmoothing(0.1))
		},
		"cross_entropy_none": func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor {
			return nn.CrossEntropy(a, o[0], nn.WithReduction(nn.None))
		},
		"cross_entropy_3d":    func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor { return nn.CrossEntropy(a, o[0]) },
		"cross_entropy_probs": func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor { return nn.CrossEntropy(a, o[0]) },
		"cross_entropy_probs_smoothing": func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor {
			return nn.CrossEntropy(a, o[0], nn.WithLabelSmoothing(0.3))
		},
		"nll": func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor { return nn.NLL(a.LogSoftmax(1), o[0]) },
		"mse": func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor { return nn.MSE(a, o[0]) },
		"mse_sum": func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor {
			return nn.MSE(a, o[0], nn.WithReduction(nn.Sum))
		},
		"l1": func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor { return nn.L1(a, o[0]) },
		"smooth_l1": func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor {
			return nn.SmoothL1(a, o[0], nn.WithBeta(0.5))
		},
		"huber":           func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor { return nn.Huber(a, o[0], nn.WithBeta(0.7)) },
		"bce":             func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor { return nn.BCE(a, o[0]) },
		"bce_with_logits": func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor { return nn.BCEWithLogits(a, o[0]) },
		"bce_with_logits_pos_weight": func(a *torch.Tensor, o []*torch.Tensor) *torch.Tensor {
			return nn.BCEWithLogits(a, o[0], nn.WithPosWeight(o[1]))
		},
	}
	if len(cases) != len(g.Losses) {
		t.Errorf("%d Go cases, %d golden", len(cases), len(g.Losses))
	}
	for _, c := range g.Losses {
		t.Run(c.Name, func(t *testing.T) {
			f := cases[c.Name]
			if f == nil {
				t.Fatalf("no Go case for %s", c.Name)
			}
			a := c.Input.Tensor().RequiresGrad_(true)
			others := make([]*torch.Tensor, len(c.Others))
			for i, o := range c.Others {
				others[i] = o.Tensor()
			}
			loss := f(a, others)
			if err := loss.Err(); err != nil {
				t.Fatal(err)
			}
			expectClose(t, "loss", loss, c.Loss, 1e-12, 1e-10)
			if err := loss.Sum().Backward(); err != nil {
				t.Fatal(err)
			}
			expectClose(t, "grad", a.Grad(), c.Grad, 1e-12, 1e-10)
		})
	}
}

func classWeight() *torch.Tensor { return torch.FromSlice([]float64{0.5, 2, 1, 1.5}) }
