package nn_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// PyTorch's values and gradients are in testdata/losses.json; these tests
// cover what its gradient cases cannot, as the runner also checks them by
// finite differences: gradients at the kinks (a margin met exactly, a
// tie of swap's distances) and through GaussianNLL's clamped variances.

func f64(shape []int, v ...float64) *torch.Tensor {
	return torch.FromSlice(v, torch.WithShape(shape...))
}

func TestLossGradientsAtKinks(t *testing.T) {
	sum := nn.WithReduction(nn.Sum)
	for _, c := range []struct {
		name  string
		ins   []*torch.Tensor
		loss  func(in []*torch.Tensor) *torch.Tensor
		want  float64
		grads [][]float64 // PyTorch 1.13's, written by hand from its output
	}{
		{"margin_ranking", []*torch.Tensor{f64([]int{3}, 1, 0.5, 2), f64([]int{3}, 0.5, 1, 2)},
			func(in []*torch.Tensor) *torch.Tensor {
				return nn.MarginRanking(in[0], in[1], f64([]int{3}, 1, -1, 1), nn.WithMargin(0.5), sum)
			},
			0.5, [][]float64{{-1, 1, -1}, {1, -1, 1}}},
		{"multi_margin", []*torch.Tensor{f64([]int{2, 3}, 1, 0, 0.5, 0, 2, 1)},
			func(in []*torch.Tensor) *torch.Tensor {
				return nn.MultiMargin(in[0], torch.FromSlice([]int64{0, 1}), sum)
			},
			1.0 / 6, [][]float64{{-1.0 / 3, 0, 1.0 / 3, 0, 0, 0}}},
		{"multi_margin_p2", []*torch.Tensor{f64([]int{2, 3}, 1, 0, 0.5, 0, 2, 1)},
			func(in []*torch.Tensor) *torch.Tensor {
				return nn.MultiMargin(in[0], torch.FromSlice([]int64{0, 1}), nn.WithP(2), sum)
			},
			1.0 / 12, [][]float64{{-1.0 / 3, 0, 1.0 / 3, 0, 0, 0}}},
		{"hinge_embedding", []*torch.Tensor{f64([]int{3}, 1, 0.5, 2)},
			func(in []*torch.Tensor) *torch.Tensor {
				return nn.HingeEmbedding(in[0], f64([]int{3}, -1, -1, 1), sum)
			},
			2.5, [][]float64{{-1, -1, 1}}},
		{"triplet_margin_swap_tie", []*torch.Tensor{f64([]int{1, 2}, 0, 0), f64([]int{1, 2}, 2, 0), f64([]int{1, 2}, 1, 0)},
			func(in []*torch.Tensor) *torch.Tensor {
				return nn.TripletMargin(in[0], in[1], in[2], nn.WithEps(0), nn.WithSwap(true), sum)
			},
			2, [][]float64{{-0.5, 0}, {0.5, 0}, {0, 0}}},
		{"gaussian_nll_clamped_var", []*torch.Tensor{f64([]int{4}, 0.5, -1, 2, 0.3), f64([]int{4}, 0, 1, 1.5, 0.3), f64([]int{4}, 0, 1e-9, 0.3, 2)},
			func(in []*torch.Tensor) *torch.Tensor {
				return nn.GaussianNLL(in[0], in[1], in[2], nn.WithEps(0.01), sum)
			},
			208.0560836687956, [][]float64{{50, -200, 1.6666666666666667, 0}, {-50, 200, -1.6666666666666667, 0},
				{-1200, -19950, 0.2777777777777777, 0.25}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for i := range c.ins {
				c.ins[i] = c.ins[i].RequiresGrad_(true)
			}
			y := c.loss(c.ins)
			got, err := y.Item()
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-c.want) > 1e-12*math.Max(1, math.Abs(c.want)) {
				t.Errorf("loss %v, PyTorch %v", got, c.want)
			}
			if err := y.Backward(); err != nil {
				t.Fatal(err)
			}
			for i, want := range c.grads {
				g := values(t, c.ins[i].Grad())
				for j := range want {
					if math.Abs(g[j]-want[j]) > 1e-9*math.Max(1, math.Abs(want[j])) {
						t.Errorf("grad %d = %v, PyTorch %v", i, g, want)
						break
					}
				}
			}
		})
	}
}

// PyTorch 1.13 returns uninitialized memory for the mean and sum of
// multi_margin_loss over an empty batch; they are NaN and 0 here, as for
// every other loss.
func TestMultiMarginEmptyBatch(t *testing.T) {
	x, y := torch.Zeros([]int{0, 4}), torch.Zeros([]int{0}, torch.WithDType(torch.Int64))
	mean, err := nn.MultiMargin(x, y).Item()
	if err != nil || !math.IsNaN(mean) {
		t.Errorf("mean %v, %v; want NaN", mean, err)
	}
	sum, err := nn.MultiMargin(x, y, nn.WithReduction(nn.Sum)).Item()
	if err != nil || sum != 0 {
		t.Errorf("sum %v, %v; want 0", sum, err)
	}
	if none := nn.MultiMargin(x, y, nn.WithReduction(nn.None)); none.Err() != nil || len(none.Shape()) != 1 || none.Shape()[0] != 0 {
		t.Errorf("none: %v", none)
	}
}

// Errors name the loss, those of the ops it is made of included.
func TestLossErrorsNameTheLoss(t *testing.T) {
	a, b := torch.Ones([]int{3, 4}), torch.Ones([]int{2, 4})
	class := torch.FromSlice([]int64{0, 1, 2})
	for _, c := range []struct {
		op string
		l  *torch.Tensor
	}{
		{"kl_div", nn.KLDiv(a, b)},
		{"kl_div", nn.KLDiv(a, nil)},
		{"cosine_embedding_loss", nn.CosineEmbedding(a, b, torch.Ones([]int{3}))},
		{"margin_ranking_loss", nn.MarginRanking(a, b, a)},
		{"triplet_margin_loss", nn.TripletMargin(a, b, a)},
		{"hinge_embedding_loss", nn.HingeEmbedding(a, b)},
		{"poisson_nll_loss", nn.PoissonNLL(a, b)},
		{"poisson_nll_loss", nn.PoissonNLL(a, a, nn.WithReduction(nn.BatchMean))},
		{"gaussian_nll_loss", nn.GaussianNLL(a, b, a)},
		{"gaussian_nll_loss", nn.GaussianNLL(a, a, a.Neg())},
		{"multilabel_soft_margin_loss", nn.MultiLabelSoftMargin(a, b)},
		{"multilabel_soft_margin_loss", nn.MultiLabelSoftMargin(a, a, nn.WithWeight(torch.Ones([]int{3})))},
		{"multi_margin_loss", nn.MultiMargin(a, class, nn.WithP(3))},
		{"multi_margin_loss", nn.MultiMargin(a, torch.FromSlice([]int64{0, 9, 1}))},
		{"multi_margin_loss", nn.MultiMargin(a, class, nn.WithWeight(torch.Ones([]int{3})))},
		{"soft_margin_loss", nn.SoftMargin(a, b)},
		{"soft_margin_loss", nn.SoftMargin(a.Select(0, 0), a)},
	} {
		err := c.l.Err()
		var e *torch.Error
		if err == nil || !errors.As(err, &e) || e.Op != c.op || !strings.Contains(err.Error(), c.op) {
			t.Errorf("%s: error %v", c.op, err)
		}
	}
}

// Options out of their ranges, NaN included, give a result or an error,
// never a panic.
func TestLossOptionsOutOfRange(t *testing.T) {
	x, y := torch.Randn([]int{3, 4}), torch.Randn([]int{3, 4})
	nan := math.NaN()
	for _, opts := range [][]nn.LossOption{
		{nn.WithMargin(nan)}, {nn.WithP(nan)}, {nn.WithP(-2)}, {nn.WithEps(nan)}, {nn.WithEps(-1)},
		{nn.WithReduction(nn.BatchMean)}, {nn.WithReduction(-1)}, {nil}, {nn.WithWeight(torch.Ones([]int{4}))},
	} {
		for _, l := range []*torch.Tensor{
			nn.KLDiv(x, y, opts...), nn.CosineEmbedding(x, y, torch.Ones([]int{3}), opts...),
			nn.MarginRanking(x, y, y.Sign(), opts...), nn.TripletMargin(x, y, x, opts...),
			nn.HingeEmbedding(x, y.Sign(), opts...), nn.PoissonNLL(x, y, opts...), nn.GaussianNLL(x, y, y.Abs(), opts...),
			nn.MultiLabelSoftMargin(x, y, opts...), nn.MultiMargin(x, torch.FromSlice([]int64{0, 1, 3}), opts...),
			nn.SoftMargin(x, y.Sign(), opts...),
		} {
			_ = l.Err()
		}
	}
}

// KLDiv with BatchMean divides the sum by the batch size; other losses
// refuse BatchMean.
func TestKLDivBatchMean(t *testing.T) {
	x := torch.Randn([]int{4, 5}).LogSoftmax(1)
	y := torch.Randn([]int{4, 5}).Softmax(1)
	bm, err := nn.KLDiv(x, y, nn.WithReduction(nn.BatchMean)).Item()
	if err != nil {
		t.Fatal(err)
	}
	s, err := nn.KLDiv(x, y, nn.WithReduction(nn.Sum)).Item()
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(bm-s/4) > 1e-6 {
		t.Errorf("batchmean %v, sum/4 %v", bm, s/4)
	}
	if err := nn.MSE(x, y, nn.WithReduction(nn.BatchMean)).Err(); err == nil {
		t.Error("MSE accepted BatchMean")
	}
}
