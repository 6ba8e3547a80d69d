package optim_test

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/internal/golden"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// optimFile is testdata/optim.json's optimizer part.
type optimFile struct {
	Optimizers []optimCase `json:"optimizers"`
	Errors     []struct {
		Optimizer string         `json:"optimizer"`
		Options   map[string]any `json:"options"`
		Error     string         `json:"error"`
	} `json:"errors"`
}

type optimCase struct {
	Name      string         `json:"name"`
	Optimizer string         `json:"optimizer"`
	Defaults  map[string]any `json:"defaults"`
	Groups    []struct {
		Params  []int          `json:"params"`
		Options map[string]any `json:"options"`
	} `json:"groups"`
	Start     []golden.Tensor     `json:"start"`
	Grads     [][]*golden.Tensor  `json:"grads"`
	After     [][]golden.Tensor   `json:"after"`
	StateKeys map[string][]string `json:"state_keys"`
	GroupKeys [][]string          `json:"group_keys"`
}

// toOptions turns PyTorch's keyword arguments into options.
func toOptions(t *testing.T, kw map[string]any) []optim.Option {
	var out []optim.Option
	for k, v := range kw {
		f, _ := v.(float64)
		b, _ := v.(bool)
		switch k {
		case "lr":
			out = append(out, optim.LR(f))
		case "momentum":
			out = append(out, optim.Momentum(f))
		case "dampening":
			out = append(out, optim.Dampening(f))
		case "weight_decay":
			out = append(out, optim.WeightDecay(f))
		case "eps":
			out = append(out, optim.Eps(f))
		case "alpha":
			out = append(out, optim.Alpha(f))
		case "lr_decay":
			out = append(out, optim.LRDecay(f))
		case "initial_accumulator_value":
			out = append(out, optim.InitialAccumulatorValue(f))
		case "momentum_decay":
			out = append(out, optim.MomentumDecay(f))
		case "nesterov":
			out = append(out, optim.Nesterov(b))
		case "maximize":
			out = append(out, optim.Maximize(b))
		case "amsgrad":
			out = append(out, optim.AMSGrad(b))
		case "centered":
			out = append(out, optim.Centered(b))
		case "betas":
			bs := v.([]any)
			out = append(out, optim.Betas(bs[0].(float64), bs[1].(float64)))
		default:
			t.Fatalf("unknown option %s", k)
		}
	}
	return out
}

// newOptimizer makes the optimizer kind.
func newOptimizer(kind string, ps []*torch.Tensor, opts []optim.Option) (optim.Optimizer, error) {
	switch kind {
	case "SGD":
		return optim.NewSGD(ps, opts...)
	case "Adam":
		return optim.NewAdam(ps, opts...)
	case "AdamW":
		return optim.NewAdamW(ps, opts...)
	case "RMSprop":
		return optim.NewRMSprop(ps, opts...)
	case "Adagrad":
		return optim.NewAdagrad(ps, opts...)
	case "Adamax":
		return optim.NewAdamax(ps, opts...)
	case "NAdam":
		return optim.NewNAdam(ps, opts...)
	case "RAdam":
		return optim.NewRAdam(ps, opts...)
	}
	return nil, fmt.Errorf("no optimizer %s", kind)
}

// build makes c's parameters (from its start) and optimizer with its groups.
func (c *optimCase) build(t *testing.T) ([]*torch.Tensor, optim.Optimizer) {
	ps := make([]*torch.Tensor, len(c.Start))
	for i, s := range c.Start {
		ps[i] = s.Tensor().RequiresGrad_(true)
	}
	taken := map[int]bool{}
	for _, g := range c.Groups {
		for _, i := range g.Params {
			taken[i] = true
		}
	}
	var first []*torch.Tensor
	for i, p := range ps {
		if !taken[i] {
			first = append(first, p)
		}
	}
	opt, err := newOptimizer(c.Optimizer, first, toOptions(t, c.Defaults))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range c.Groups {
		var gp []*torch.Tensor
		for _, i := range g.Params {
			gp = append(gp, ps[i])
		}
		if err := opt.AddParamGroup(gp, toOptions(t, g.Options)...); err != nil {
			t.Fatal(err)
		}
	}
	return ps, opt
}

// steps runs steps from..to of c on ps, checking the parameters after each.
func (c *optimCase) steps(t *testing.T, ps []*torch.Tensor, opt optim.Optimizer, from, to int) {
	t.Helper()
	atol, rtol := 1e-6, 1e-5
	if c.Start[0].DType == "float64" {
		atol, rtol = 1e-13, 1e-12
	}
	for step := from; step < to; step++ {
		for i, p := range ps {
			var g *torch.Tensor
			if c.Grads[step][i] != nil {
				g = c.Grads[step][i].Tensor()
			}
			if err := p.SetGrad(g); err != nil {
				t.Fatal(err)
			}
		}
		if err := opt.Step(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		for i, p := range ps {
			got, err := torch.ToSlice[float64](p.Detach().ToDType(torch.Float64))
			if err != nil {
				t.Fatal(err)
			}
			for j, want := range c.After[step][i].Data {
				if !golden.Close(got[j], want, atol, rtol) {
					t.Fatalf("step %d: param %d[%d] = %.17g, PyTorch %.17g", step, i, j, got[j], want)
				}
			}
		}
	}
}

func loadOptim(t *testing.T) optimFile {
	var f optimFile
	if err := golden.Load("optim.json", &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// Every optimizer with its options and groups follows PyTorch's steps, in
// float32 and float64, and its state dict has PyTorch's keys.
func TestEveryOptimizerMatchesPyTorch(t *testing.T) {
	for _, c := range loadOptim(t).Optimizers {
		t.Run(c.Name+"_"+c.Start[0].DType, func(t *testing.T) {
			ps, opt := c.build(t)
			c.steps(t, ps, opt, 0, len(c.After))
			sd, err := opt.StateDict()
			if err != nil {
				t.Fatal(err)
			}
			for id, want := range c.StateKeys {
				var n int
				fmt.Sscan(id, &n)
				got := slices.Sorted(mapKeys(sd.State[n]))
				want = slices.DeleteFunc(slices.Clone(want), func(k string) bool {
					return k == "momentum_buffer" && c.Optimizer == "SGD" && sd.State[n]["momentum_buffer"] == nil
				})
				if !slices.Equal(got, want) {
					t.Errorf("state %d keys %v, PyTorch %v", n, got, want)
				}
			}
			for i, want := range c.GroupKeys {
				got := slices.Sorted(mapKeys(sd.ParamGroups[i]))
				if !slices.Equal(got, want) {
					t.Errorf("group %d keys %v, PyTorch %v", i, got, want)
				}
			}
		})
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !yield(k) {
				return
			}
		}
	}
}

// A state dict saved after k steps and loaded into a fresh optimizer over
// fresh parameters continues exactly as the uninterrupted run.
func TestStateDictRoundTrip(t *testing.T) {
	const k = 3
	for _, c := range loadOptim(t).Optimizers {
		t.Run(c.Name+"_"+c.Start[0].DType, func(t *testing.T) {
			ps, opt := c.build(t)
			c.steps(t, ps, opt, 0, k)
			sd, err := opt.StateDict()
			if err != nil {
				t.Fatal(err)
			}
			ps2, opt2 := c.build(t) // fresh, from the start: take the parameters of step k
			for i, p := range ps2 {
				p.Detach().Copy_(ps[i])
			}
			// Different hyperparameters in the fresh optimizer are overwritten.
			for _, g := range opt2.ParamGroups() {
				if err := g.SetLR(123); err != nil {
					t.Fatal(err)
				}
			}
			if err := opt2.LoadStateDict(sd); err != nil {
				t.Fatal(err)
			}
			c.steps(t, ps2, opt2, k, len(c.After))
		})
	}
}

func TestStateDictErrors(t *testing.T) {
	p := torch.Ones([]int{2}).RequiresGrad_(true)
	q := torch.Ones([]int{3}).RequiresGrad_(true)
	one, _ := optim.NewAdam([]*torch.Tensor{p})
	two, _ := optim.NewAdam([]*torch.Tensor{p, q})
	grouped, _ := optim.NewAdam([]*torch.Tensor{p})
	if err := grouped.AddParamGroup([]*torch.Tensor{q}, optim.LR(0.5)); err != nil {
		t.Fatal(err)
	}
	sdOne, _ := one.StateDict()
	sdGrouped, _ := grouped.StateDict()
	if err := two.LoadStateDict(sdGrouped); err == nil || !strings.Contains(err.Error(), "different number of parameter groups") {
		t.Errorf("groups mismatch: %v", err)
	}
	if err := two.LoadStateDict(sdOne); err == nil || !strings.Contains(err.Error(), "doesn't match the size of optimizer's group") {
		t.Errorf("size mismatch: %v", err)
	}
	if err := two.LoadStateDict(nil); err == nil {
		t.Error("nil state dict accepted")
	}
	if err := grouped.AddParamGroup([]*torch.Tensor{q}); err == nil || !strings.Contains(err.Error(), "more than one parameter group") {
		t.Errorf("a parameter in two groups: %v", err)
	}
	p.SetGrad(torch.Ones([]int{2}))
	if err := one.Step(); err != nil {
		t.Fatal(err)
	}
	sd, _ := one.StateDict()
	sd.State[0]["exp_avg"] = torch.Ones([]int{3})
	fresh, _ := optim.NewAdam([]*torch.Tensor{p}, optim.LR(0.7))
	if err := fresh.LoadStateDict(sd); !errors.Is(err, torch.ErrArgument) || fresh.LR() != 0.7 {
		t.Errorf("a state of another shape: %v (lr now %v)", err, fresh.LR())
	}
	sd, _ = one.StateDict()
	sd.ParamGroups[0]["lr"] = -1.0
	if err := fresh.LoadStateDict(sd); err == nil || !strings.Contains(err.Error(), "Invalid learning rate: -1.0") {
		t.Errorf("a negative lr: %v", err)
	}
	sd.ParamGroups[0]["lr"] = 0.1
	sd.ParamGroups[0]["momentum"] = 0.1
	if err := fresh.LoadStateDict(sd); err == nil || !strings.Contains(err.Error(), "momentum") {
		t.Errorf("an option Adam lacks: %v", err)
	}
}

// Constructors refuse what PyTorch refuses, with its message.
func TestArgumentErrorsMatchPyTorch(t *testing.T) {
	p := torch.Zeros([]int{2}).RequiresGrad_(true)
	for _, c := range loadOptim(t).Errors {
		_, err := newOptimizer(c.Optimizer, []*torch.Tensor{p}, toOptions(t, c.Options))
		if !errors.Is(err, torch.ErrArgument) || !strings.Contains(err.Error(), c.Error) {
			t.Errorf("%s %v: %v, PyTorch %q", c.Optimizer, c.Options, err, c.Error)
		}
	}
}

// ZeroGradSetToNone(false) zeroes gradients in place; ZeroGrad drops them.
func TestZeroGrad(t *testing.T) {
	p := torch.Ones([]int{2}).RequiresGrad_(true)
	opt, _ := optim.NewRMSprop([]*torch.Tensor{p})
	g := torch.Ones([]int{2})
	p.SetGrad(g)
	opt.ZeroGradSetToNone(false)
	if v, _ := torch.ToSlice[float32](p.Grad()); p.Grad() == nil || v[0] != 0 || v[1] != 0 {
		t.Errorf("zeroed gradient %v", v)
	}
	opt.ZeroGrad()
	if p.Grad() != nil {
		t.Error("ZeroGrad kept the gradient")
	}
}
