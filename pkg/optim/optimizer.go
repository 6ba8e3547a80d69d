package optim

import (
	"fmt"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Optimizer updates parameters from their gradients.
type Optimizer interface {
	// Step updates every parameter that has a gradient. Gradients are
	// checked first (errors, shape, dtype, device, as PyTorch checks them),
	// so a bad gradient changes no parameter; an error while updating
	// (released memory, say) is returned, with the parameters before it
	// updated.
	Step() error
	// ZeroGrad drops the parameters' gradients (set_to_none=True).
	ZeroGrad()
}

// params is the parameter list every optimizer holds, and its settings.
type params struct {
	name string
	ps   []*torch.Tensor
	settings
}

// newParams checks ps and opts for the optimizer name, which takes the
// options allowed, starting from defaults.
func newParams(name string, ps []*torch.Tensor, defaults settings, allowed []string, opts []Option) (params, error) {
	p := params{name: name, ps: slices.Clone(ps), settings: defaults}
	if err := p.settings.apply(name, allowed, opts); err != nil {
		return p, err
	}
	return p, checkParams(name, ps)
}

// zeroGrad drops every parameter's gradient (nothing for a nil optimizer).
func (ps *params) zeroGrad() {
	if ps == nil {
		return
	}
	for _, p := range ps.ps {
		_ = p.SetGrad(nil) // clearing cannot fail on a checked parameter
	}
}

// learningRate is the learning rate (0 for a nil optimizer).
func (ps *params) learningRate() float64 {
	if ps == nil {
		return 0
	}
	return ps.lr
}

// setLR changes the learning rate; a negative or NaN rate is an error and
// changes nothing.
func (ps *params) setLR(name string, lr float64) error {
	if ps == nil {
		return nilOptimizer(name, "SetLR")
	}
	s := ps.settings
	s.lr = lr
	if err := s.check(ps.name); err != nil {
		return err
	}
	ps.lr = lr
	return nil
}

// checkParams validates the parameters: leaves that require grad, without
// errors, each given once.
func checkParams(op string, ps []*torch.Tensor) error {
	if len(ps) == 0 {
		return torch.NewError(op, torch.ErrArgument, nil, "optimizer got an empty parameter list")
	}
	for i, p := range ps {
		if p == nil {
			return torch.NewError(op, torch.ErrArgument, nil, "parameter %d is nil", i)
		}
		if err := p.Err(); err != nil {
			return fmt.Errorf("%s: parameter %d: %w", op, i, err)
		}
		if !p.IsLeaf() {
			return torch.NewError(op, torch.ErrArgument, []*torch.Tensor{p}, "can't optimize a non-leaf Tensor")
		}
		if !p.DType().IsFloatingPoint() {
			return torch.NewError(op, torch.ErrDType, []*torch.Tensor{p}, "parameter %d is not floating point", i)
		}
		if !p.RequiresGrad() {
			return torch.NewError(op, torch.ErrArgument, []*torch.Tensor{p}, "parameter %d does not require gradients", i)
		}
		if slices.Contains(ps[:i], p) {
			return torch.NewError(op, torch.ErrArgument, []*torch.Tensor{p}, "some parameters appear more than once (parameter %d)", i)
		}
	}
	return nil
}

// grads returns each parameter's gradient (nil for none), or the first
// problem of a gradient, before any parameter changes: an error it
// carries, or a shape, dtype or device other than its parameter's.
func (ps *params) grads() ([]*torch.Tensor, error) {
	gs := make([]*torch.Tensor, len(ps.ps))
	for i, p := range ps.ps {
		g := p.Grad()
		if g == nil {
			continue
		}
		if err := g.Err(); err != nil {
			return nil, fmt.Errorf("%s: gradient of parameter %d: %w", ps.name, i, err)
		}
		if err := torch.CheckGrad(p, g); err != nil {
			return nil, fmt.Errorf("%s: parameter %d: %w", ps.name, i, err)
		}
		gs[i] = g
	}
	return gs, nil
}

// nilOptimizer is the error of a method called on a nil optimizer.
func nilOptimizer(name, method string) error {
	return invalid(name, "%s called on a nil *%s (make optimizers with New%s)", method, name, name)
}

// step runs update on detached aliases of each parameter that has a
// gradient and of that gradient, after checking every gradient (grads):
// the optimizers' Step. Working on detached aliases, it records nothing
// whatever the grad mode.
func (ps *params) step(name string, update func(i int, p, g *torch.Tensor) error) error {
	if ps == nil {
		return nilOptimizer(name, "Step")
	}
	gs, err := ps.grads()
	if err != nil {
		return err
	}
	for i, p := range ps.ps {
		if gs[i] == nil {
			continue
		}
		if err := update(i, p.Detach(), gs[i].Detach()); err != nil {
			return err
		}
	}
	return nil
}

// firstErr is the first error among ts (nil entries are skipped).
func firstErr(ts ...*torch.Tensor) error {
	for _, t := range ts {
		if t == nil {
			continue
		}
		if err := t.Err(); err != nil {
			return err
		}
	}
	return nil
}
