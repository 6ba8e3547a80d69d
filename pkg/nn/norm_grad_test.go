package nn_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestNormModulesGradCheck checks the gradients of GroupNorm and
// InstanceNorm2d, for every option, by finite differences: of the input,
// and of the weight and bias when affine.
func TestNormModulesGradCheck(t *testing.T) {
	gen := torch.NewGenerator(3)
	randn := func(shape ...int) *torch.Tensor {
		return torch.Randn(shape, torch.WithDType(torch.Float64), torch.WithGenerator(gen)).RequiresGrad_(true)
	}
	f64 := torch.WithDType(torch.Float64)
	gnEps := nn.NewGroupNorm(3, 6, true, f64)
	gnEps.Eps = 0.1
	in2dEval := nn.NewInstanceNorm2d(3, true, true, f64)
	torch.NoGrad(func() { in2dEval.RunningVar.MulScalar_(2); in2dEval.RunningMean.AddScalar_(0.5) })
	nn.Eval(in2dEval)
	in2dEvalNoStats := nn.NewInstanceNorm2d(3, false, false, f64)
	nn.Eval(in2dEvalNoStats)
	for _, c := range []struct {
		name  string
		m     nn.Layer
		shape []int
		ch    int // the channels of the weight and bias when affine
	}{
		{"GroupNorm", nn.NewGroupNorm(2, 4, true, f64), []int{2, 4, 3, 2}, 4},
		{"GroupNorm_eps", gnEps, []int{2, 6, 5}, 6},
		{"GroupNorm_no_affine", nn.NewGroupNorm(2, 4, false, f64), []int{3, 4, 2}, 4},
		{"GroupNorm_per_channel", nn.NewGroupNorm(4, 4, true, f64), []int{2, 4, 3}, 4},
		{"InstanceNorm2d", nn.NewInstanceNorm2d(3, false, false, f64), []int{2, 3, 3, 2}, 3},
		{"InstanceNorm2d_affine", nn.NewInstanceNorm2d(3, true, false, f64), []int{2, 3, 2, 3}, 3},
		{"InstanceNorm2d_stats", nn.NewInstanceNorm2d(3, true, true, f64), []int{2, 3, 2, 2}, 3},
		{"InstanceNorm2d_unbatched", nn.NewInstanceNorm2d(3, true, true, f64), []int{3, 2, 3}, 3},
		{"InstanceNorm2d_eval_stats", in2dEval, []int{2, 3, 2, 2}, 3},
		{"InstanceNorm2d_eval_no_stats", in2dEvalNoStats, []int{2, 3, 2, 2}, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			inputs := []*torch.Tensor{randn(c.shape...)}
			var set func(w, b *torch.Tensor)
			switch m := c.m.(type) {
			case *nn.GroupNorm:
				if m.Weight != nil {
					set = func(w, b *torch.Tensor) { m.Weight, m.Bias = w, b }
				}
			case *nn.InstanceNorm2d:
				if m.Weight != nil {
					set = func(w, b *torch.Tensor) { m.Weight, m.Bias = w, b }
				}
			}
			if set != nil {
				inputs = append(inputs, randn(c.ch), randn(c.ch))
			}
			f := func(in ...*torch.Tensor) *torch.Tensor {
				if set != nil {
					set(in[1], in[2])
				}
				return c.m.Forward(in[0])
			}
			if err := f(inputs...).Err(); err != nil {
				t.Fatal(err)
			}
			if err := torch.GradCheck(f, inputs, torch.GradCheckOptions{}); err != nil {
				t.Error(err)
			}
		})
	}
}
