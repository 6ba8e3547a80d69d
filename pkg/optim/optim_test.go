package optim_test

import (
	"errors"
	"math"
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
	"sgd": func(ps []*torch.Tensor) (optim.Optimizer, error) { return optim.NewSGD(ps, optim.LR(0.1)) },
	"sgd_momentum_nesterov_wd": func(ps []*torch.Tensor) (optim.Optimizer, error) {
		return optim.NewSGD(ps, optim.LR(0.1), optim.Momentum(0.9), optim.Nesterov(true), optim.WeightDecay(1e-3))
	},
	"sgd_momentum_dampening": func(ps []*torch.Tensor) (optim.Optimizer, error) {
		return optim.NewSGD(ps, optim.LR(0.05), optim.Momentum(0.5), optim.Dampening(0.1))
	},
	"adam": func(ps []*torch.Tensor) (optim.Optimizer, error) {
		return optim.NewAdam(ps, optim.LR(1e-2))
	},
	"adam_wd_amsgrad": func(ps []*torch.Tensor) (optim.Optimizer, error) {
		return optim.NewAdam(ps, optim.LR(1e-2), optim.WeightDecay(1e-3), optim.AMSGrad(true))
	},
	"adamw": func(ps []*torch.Tensor) (optim.Optimizer, error) {
		return optim.NewAdamW(ps, optim.LR(1e-2))
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
		{"negative lr", second(optim.NewSGD(ps, optim.LR(-1))), "Invalid learning rate: -1"},
		{"nesterov without momentum", second(optim.NewSGD(ps, optim.LR(1), optim.Nesterov(true))), "Nesterov"},
		{"bad beta", second(optim.NewAdam(ps, optim.Betas(0.9, 1))), "Invalid beta parameter at index 1"},
		{"no parameters", second(optim.NewAdam(nil)), "empty parameter list"},
		{"non-leaf", second(optim.NewSGD([]*torch.Tensor{p.MulScalar(2)}, optim.LR(1))), "non-leaf"},
		{"integer parameter", second(optim.NewSGD([]*torch.Tensor{torch.Ones([]int{1}, torch.WithDType(torch.Int64))}, optim.LR(1))), "floating point"},
		{"momentum for Adam", second(optim.NewAdam(ps, optim.Momentum(0.9))), "Adam has no option momentum"},
		{"amsgrad for SGD", second(optim.NewSGD(ps, optim.AMSGrad(true))), "SGD has no option amsgrad"},
		{"NaN lr", second(optim.NewSGD(ps, optim.LR(math.NaN()))), "Invalid learning rate: nan"},
		{"infinite eps", second(optim.NewAdam(ps, optim.Eps(math.Inf(1)))), "Invalid epsilon value: inf"},
		{"negative eps", second(optim.NewAdam(ps, optim.Eps(-1))), "Invalid epsilon value: -1"},
		{"negative decay", second(optim.NewAdamW(ps, optim.WeightDecay(-1))), "Invalid weight_decay value: -1"},
		{"a zero Option", second(optim.NewSGD(ps, optim.Option{})), "option functions"},
		{"nil parameter", second(optim.NewSGD([]*torch.Tensor{p, nil})), "parameter 1 is nil"},
		{"twice", second(optim.NewSGD([]*torch.Tensor{p, p})), "more than once"},
		{"no grad", second(optim.NewSGD([]*torch.Tensor{torch.Ones([]int{1})})), "does not require gradients"},
	}
	for _, c := range cases {
		if !errors.Is(c.err, torch.ErrArgument) && !errors.Is(c.err, torch.ErrDType) || !strings.Contains(c.err.Error(), c.text) {
			t.Errorf("%s: %v", c.name, c.err)
		}
	}
}

func TestStepReportsGradientErrors(t *testing.T) {
	for name, make := range makers {
		t.Run(name, func(t *testing.T) {
			p := torch.Ones([]int{2}).RequiresGrad_(true)
			q := torch.Ones([]int{3}).RequiresGrad_(true)
			opt, err := make([]*torch.Tensor{p, q})
			if err != nil {
				t.Fatal(err)
			}
			if err := opt.Step(); err != nil {
				t.Errorf("a step without gradients: %v", err)
			}
			if err := p.SetGrad(torch.Ones([]int{2}).Add(torch.Ones([]int{3}))); !errors.Is(err, torch.ErrShape) {
				t.Errorf("SetGrad of a failed gradient: %v", err)
			}
			if err := p.SetGrad(torch.Ones([]int{3})); !errors.Is(err, torch.ErrShape) {
				t.Errorf("SetGrad of a gradient of another shape: %v", err)
			}
			if err := p.SetGrad(torch.Ones([]int{2}, torch.WithDType(torch.Float64))); !errors.Is(err, torch.ErrDType) {
				t.Errorf("SetGrad of a gradient of another dtype: %v", err)
			}
			if err := p.SetGrad(torch.Ones([]int{2}, torch.WithDevice("meta"))); !errors.Is(err, torch.ErrDevice) {
				t.Errorf("SetGrad of a gradient on another device: %v", err)
			}
			if err := opt.Step(); err != nil {
				t.Errorf("a step after refused gradients: %v", err)
			}
			// A gradient whose memory was released: the step fails and
			// says so, instead of skipping or corrupting the update.
			if err := p.Mul(p).Sum().Add(q.Sum()).Backward(); err != nil {
				t.Fatal(err)
			}
			q.Grad().Release()
			if err := opt.Step(); err == nil {
				t.Error("a step with a released gradient returned nil")
			}
			if v, _ := torch.ToSlice[float32](q); v[0] != 1 {
				t.Errorf("parameter changed by a failed step: %v", v)
			}
		})
	}
}

func TestOptionsTakeExplicitZeros(t *testing.T) {
	p := torch.Ones([]int{2}).RequiresGrad_(true)
	for name, opts := range map[string][]optim.Option{
		"lr 0":     {optim.LR(0)},
		"eps 0":    {optim.LR(0), optim.Eps(0)},
		"betas 0":  {optim.LR(0), optim.Betas(0, 0)},
		"decay 0":  {optim.LR(0), optim.WeightDecay(0)},
		"maximize": {optim.LR(0), optim.Maximize(true)},
	} {
		opt, err := optim.NewAdamW([]*torch.Tensor{p}, opts...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := p.SetGrad(torch.Ones([]int{2})); err != nil {
			t.Fatal(err)
		}
		if err := opt.Step(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if v, _ := torch.ToSlice[float32](p); v[0] != 1 || v[1] != 1 {
			t.Errorf("%s: a step with lr 0 changed the parameter: %v", name, v)
		}
	}
	sgd, err := optim.NewSGD([]*torch.Tensor{p})
	if err != nil || sgd.LR() != 1e-3 {
		t.Errorf("SGD without LR: lr %v, %v (PyTorch 2.x's default is 1e-3)", sgd.LR(), err)
	}
	if err := sgd.SetLR(math.NaN()); err == nil || sgd.LR() != 1e-3 {
		t.Errorf("SetLR(NaN): %v, lr now %v", err, sgd.LR())
	}
}

func second[T any](_ T, err error) error { return err }

// Adam counts steps per parameter, as PyTorch's state["step"]: a parameter
// whose first gradient comes at the third step is bias-corrected as at its
// first (PyTorch: its first Adam step moves it by lr, whatever the step
// count of the others).
func TestAdamCountsStepsPerParameter(t *testing.T) {
	p := torch.Zeros([]int{1}).RequiresGrad_(true)
	q := torch.Zeros([]int{1}).RequiresGrad_(true)
	opt, err := optim.NewAdam([]*torch.Tensor{p, q}, optim.LR(0.1))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := p.SetGrad(torch.Ones([]int{1})); err != nil {
			t.Fatal(err)
		}
		if err := opt.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if err := q.SetGrad(torch.Ones([]int{1})); err != nil {
		t.Fatal(err)
	}
	if err := opt.Step(); err != nil {
		t.Fatal(err)
	}
	if v, _ := q.Item(); math.Abs(v+0.1) > 1e-6 {
		t.Errorf("q after its first step: %v, want -0.1 (lr times the sign of the gradient)", v)
	}
}
