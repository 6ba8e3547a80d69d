package optim_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/internal/golden"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// optimGolden is the "optim" part of testdata/nn.json: a small MLP's
// starting weights and, per optimizer, the losses of five steps and the
// final weights, from PyTorch.
type optimGolden struct {
	Optim struct {
		X     golden.Tensor            `json:"x"`
		Y     golden.Tensor            `json:"y"`
		Start map[string]golden.Tensor `json:"start"`
		Runs  []struct {
			Name   string                   `json:"name"`
			Losses []float64                `json:"losses"`
			Final  map[string]golden.Tensor `json:"final"`
		} `json:"runs"`
	} `json:"optim"`
}

var makers = map[string]func(ps []*torch.Tensor) (optim.Optimizer, error){
	"sgd": func(ps []*torch.Tensor) (optim.Optimizer, error) { return optim.NewSGD(ps, optim.SGDConfig{LR: 0.1}) },
	"sgd_momentum_nesterov_wd": func(ps []*torch.Tensor) (optim.Optimizer, error) {
		return optim.NewSGD(ps, optim.SGDConfig{LR: 0.1, Momentum: 0.9, Nesterov: true, WeightDecay: 1e-3})
	},
	"sgd_momentum_dampening": func(ps []*torch.Tensor) (optim.Optimizer, error) {
		return optim.NewSGD(ps, optim.SGDConfig{LR: 0.05, Momentum: 0.5, Dampening: 0.1})
	},
	"adam": func(ps []*torch.Tensor) (optim.Optimizer, error) {
		return optim.NewAdam(ps, optim.AdamConfig{LR: 1e-2})
	},
	"adam_wd_amsgrad": func(ps []*torch.Tensor) (optim.Optimizer, error) {
		return optim.NewAdam(ps, optim.AdamConfig{LR: 1e-2, WeightDecay: 1e-3, AMSGrad: true})
	},
	"adamw": func(ps []*torch.Tensor) (optim.Optimizer, error) {
		return optim.NewAdamW(ps, optim.AdamConfig{LR: 1e-2})
	},
}

func TestOptimizersMatchPyTorch(t *testing.T) {
	var g optimGolden
	if err := golden.Load("nn.json", &g); err != nil {
		t.Fatal(err)
	}
	o := g.Optim
	if len(o.Runs) != len(makers) {
		t.Errorf("%d golden runs, %d Go optimizers", len(o.Runs), len(makers))
	}
	x, y := o.X.Tensor(), o.Y.Tensor()
	for _, run := range o.Runs {
		t.Run(run.Name, func(t *testing.T) {
			model := nn.NewSequential(nn.NewLinear(4, 8), nn.ReLU(), nn.NewLinear(8, 3))
			start := map[string]*torch.Tensor{}
			for k, v := range o.Start {
				start[k] = v.Tensor()
			}
			if err := nn.LoadStateDict(model, start); err != nil {
				t.Fatal(err)
			}
			opt, err := makers[run.Name](nn.Parameters(model))
			if err != nil {
				t.Fatal(err)
			}
			for step, want := range run.Losses {
				opt.ZeroGrad()
				loss := nn.CrossEntropy(model.Forward(x), y)
				got, err := loss.Item()
				if err != nil {
					t.Fatal(err)
				}
				if !golden.Close(got, want, 1e-6, 1e-5) {
					t.Errorf("step %d: loss %.8g, PyTorch %.8g", step, got, want)
				}
				if err := loss.Backward(); err != nil {
					t.Fatal(err)
				}
				if err := opt.Step(); err != nil {
					t.Fatal(err)
				}
			}
			for name, p := range nn.StateDict(model) {
				vals, err := torch.ToSlice[float32](p)
				if err != nil {
					t.Fatal(err)
				}
				for i, want := range run.Final[name].Data {
					if !golden.Close(float64(vals[i]), want, 1e-6, 1e-5) {
						t.Errorf("%s[%d] = %.8g, PyTorch %.8g", name, i, vals[i], want)
					}
				}
			}
		})
	}
}

func TestOptimizerErrors(t *testing.T) {
	p := torch.Ones([]int{2}).RequiresGrad_(true)
	ps := []*torch.Tensor{p}
	cases := []struct {
		name string
		err  error
		text string
	}{
		{"negative lr", second(optim.NewSGD(ps, optim.SGDConfig{LR: -1})), "Invalid learning rate: -1"},
		{"nesterov without momentum", second(optim.NewSGD(ps, optim.SGDConfig{LR: 1, Nesterov: true})), "Nesterov"},
		{"bad beta", second(optim.NewAdam(ps, optim.AdamConfig{Betas: [2]float64{0.9, 1}})), "Invalid beta parameter at index 1"},
		{"no parameters", second(optim.NewAdam(nil, optim.AdamConfig{})), "empty parameter list"},
		{"non-leaf", second(optim.NewSGD([]*torch.Tensor{p.MulScalar(2)}, optim.SGDConfig{LR: 1})), "non-leaf"},
		{"integer parameter", second(optim.NewSGD([]*torch.Tensor{torch.Ones([]int{1}, torch.WithDType(torch.Int64))}, optim.SGDConfig{LR: 1})), "floating point"},
	}
	for _, c := range cases {
		if !errors.Is(c.err, torch.ErrArgument) && !errors.Is(c.err, torch.ErrDType) || !strings.Contains(c.err.Error(), c.text) {
			t.Errorf("%s: %v", c.name, c.err)
		}
	}
}

func TestStepReportsGradientErrors(t *testing.T) {
	p := torch.Ones([]int{2}).RequiresGrad_(true)
	opt, err := optim.NewSGD([]*torch.Tensor{p}, optim.SGDConfig{LR: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := opt.Step(); err != nil {
		t.Errorf("a step without gradients: %v", err)
	}
	p.SetGrad(torch.Ones([]int{2}).Add(torch.Ones([]int{3})))
	if err := opt.Step(); !errors.Is(err, torch.ErrShape) {
		t.Errorf("a step with a failed gradient: %v", err)
	}
	v, _ := torch.ToSlice[float32](p)
	if v[0] != 1 {
		t.Errorf("parameter changed by a failed step: %v", v)
	}
}

func second[T any](_ T, err error) error { return err }
