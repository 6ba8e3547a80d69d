package optim

import (
	"fmt"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Optimizer updates parameters from their gradients. Every optimizer of
// this package implements it; LR schedulers (package lrscheduler) work on
// any Optimizer's parameter groups.
type Optimizer interface {
	// Step updates every parameter that has a gradient. Gradients are
	// checked first (errors, shape, dtype, device, as PyTorch checks them),
	// so a bad gradient changes no parameter; an error while updating
	// (released memory, say) is returned, with the parameters before it
	// updated.
	Step() error
	// ZeroGrad drops the parameters' gradients (set_to_none=True).
	ZeroGrad()
	// ZeroGradSetToNone is zero_grad(set_to_none): true drops the
	// gradients, false fills them with zeros in place.
	ZeroGradSetToNone(setToNone bool)
	// ParamGroups are the parameter groups, in order; changing a group's
	// hyperparameters changes the next steps.
	ParamGroups() []*ParamGroup
	// AddParamGroup adds a group of parameters whose options override the
	// optimizer's defaults.
	AddParamGroup(ps []*torch.Tensor, opts ...Option) error
	// StateDict is the optimizer's state as PyTorch's state_dict().
	StateDict() (*StateDict, error)
	// LoadStateDict restores a state from StateDict.
	LoadStateDict(sd *StateDict) error
}

// paramState is PyTorch's optimizer.state[p]: the step count, NAdam's
// momentum product and the buffers by PyTorch's names ("exp_avg", ...).
type paramState struct {
	step      float64 // state["step"], a float tensor in PyTorch
	muProduct float32 // NAdam's state["mu_product"], a float32 tensor in PyTorch
	bufs      map[string]*torch.Tensor
}

// buffer is the buffer name, made by init at its first use.
func (s *paramState) buffer(name string, init func() *torch.Tensor) *torch.Tensor {
	b := s.bufs[name]
	if b == nil {
		b = init()
		torch.Keep(b) // state outlives any torch.Tidy the step runs in
		s.bufs[name] = b
	}
	return b
}

// core holds what every optimizer has: its name, the options it takes,
// its defaults, the parameter groups and the state of each parameter.
type core struct {
	name     string
	allowed  []string
	defaults settings
	stepped  bool // whether the state has "step" (all but SGD)
	groups   []*ParamGroup
	state    map[*torch.Tensor]*paramState
}

// updateFunc applies one parameter's step: p and g are detached aliases
// of the parameter and of its checked gradient.
type updateFunc func(s *settings, st *paramState, p, g *torch.Tensor) error

// newCore makes the optimizer name over ps, whose options are allowed,
// with defaults changed by opts.
func newCore(name string, ps []*torch.Tensor, defaults settings, allowed []string, opts []Option) (core, error) {
	c := core{name: name, allowed: allowed, defaults: defaults, stepped: name != "SGD",
		state: map[*torch.Tensor]*paramState{}}
	if err := c.defaults.apply(name, allowed, opts); err != nil {
		return c, err
	}
	if err := checkParams(name, ps); err != nil {
		return c, err
	}
	c.groups = []*ParamGroup{{params: slices.Clone(ps), s: c.defaults, optName: name, allowed: allowed}}
	return c, nil
}

// ready returns an error for a nil optimizer or one not made by its
// constructor.
func (c *core) ready(name, method string) error {
	if c == nil || c.name == "" {
		return invalid(name, "%s called on a nil or zero *%s (make optimizers with New%s)", method, name, name)
	}
	return nil
}

// addGroup checks ps (not in another group) and opts, and adds the group.
func (c *core) addGroup(name string, ps []*torch.Tensor, opts []Option) error {
	if err := c.ready(name, "AddParamGroup"); err != nil {
		return err
	}
	s := c.defaults
	if err := s.apply(name, c.allowed, opts); err != nil {
		return err
	}
	if len(ps) > 0 {
		if err := checkParams(name, ps); err != nil {
			return err
		}
	}
	for _, g := range c.groups {
		for _, p := range ps {
			if slices.Contains(g.params, p) {
				return invalid(name, "some parameters appear in more than one parameter group")
			}
		}
	}
	c.groups = append(c.groups, &ParamGroup{params: slices.Clone(ps), s: s, optName: c.name, allowed: c.allowed})
	return nil
}

// paramGroups is the list of groups (a copy of the list, the groups
// themselves shared).
func (c *core) paramGroups() []*ParamGroup {
	if c == nil {
		return nil
	}
	return slices.Clone(c.groups)
}

// zeroGrad drops or zeroes every parameter's gradient (nothing for a nil
// optimizer). Zeroing detaches a gradient that has a graph first, as
// PyTorch does.
func (c *core) zeroGrad(setToNone bool) {
	if c == nil {
		return
	}
	for _, g := range c.groups {
		for _, p := range g.params {
			grad := p.Grad()
			if grad == nil {
				continue
			}
			if setToNone {
				_ = p.SetGrad(nil) // clearing cannot fail on a checked parameter
				continue
			}
			if grad.GradFn() != nil || grad.RequiresGrad() {
				grad = grad.Detach()
				_ = p.SetGrad(grad) // its own detached gradient: same shape, dtype and device
			}
			grad.Detach().Zero_()
		}
	}
}

// learningRate is the first group's learning rate (0 for a nil optimizer).
func (c *core) learningRate() float64 {
	if c == nil || len(c.groups) == 0 {
		return 0
	}
	return c.groups[0].s.lr
}

// setLR changes every group's learning rate; a negative, infinite or NaN
// rate is an error and changes nothing.
func (c *core) setLR(name string, lr float64) error {
	if err := c.ready(name, "SetLR"); err != nil {
		return err
	}
	for _, g := range c.groups {
		s := g.s
		s.lr = lr
		if err := s.check(name); err != nil {
			return err
		}
	}
	for _, g := range c.groups {
		g.s.lr = lr
	}
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

// grads returns each parameter's gradient (nil for none), group by group,
// or the first problem of a gradient, before any parameter changes: an
// error it carries, or a shape, dtype or device other than its
// parameter's.
func (c *core) grads() ([][]*torch.Tensor, error) {
	out := make([][]*torch.Tensor, len(c.groups))
	n := 0
	for gi, grp := range c.groups {
		out[gi] = make([]*torch.Tensor, len(grp.params))
		for i, p := range grp.params {
			g := p.Grad()
			if g != nil {
				if err := g.Err(); err != nil {
					return nil, fmt.Errorf("%s: gradient of parameter %d: %w", c.name, n+i, err)
				}
				if err := torch.CheckGrad(p, g); err != nil {
					return nil, fmt.Errorf("%s: parameter %d: %w", c.name, n+i, err)
				}
			}
			out[gi][i] = g
		}
		n += len(grp.params)
	}
	return out, nil
}

// step runs update on detached aliases of each parameter that has a
// gradient and of that gradient, after checking every gradient (grads):
// the optimizers' Step. Working on detached aliases, it records nothing
// whatever the grad mode.
func (c *core) step(name string, update updateFunc) error {
	if err := c.ready(name, "Step"); err != nil {
		return err
	}
	gs, err := c.grads()
	if err != nil {
		return err
	}
	for gi, grp := range c.groups {
		for i, p := range grp.params {
			if gs[gi][i] == nil {
				continue
			}
			st := c.state[p]
			if st == nil {
				st = &paramState{muProduct: 1, bufs: map[string]*torch.Tensor{}}
				c.state[p] = st
			}
			if err := update(&grp.s, st, p.Detach(), gs[gi][i].Detach()); err != nil {
				return err
			}
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

// addcdiv_ is PyTorch's t.addcdiv_(a, b, value=v): t + v*a/b, in that
// order of rounding (the scalar first multiplies a, as ATen's CPU kernel).
func addcdiv_(t, a, b *torch.Tensor, v float64) *torch.Tensor {
	var tmp temps
	defer tmp.release()
	return t.Add_(tmp.add(tmp.add(a.MulScalar(v)).Div(b)))
}

// addcmul is PyTorch's t.addcmul(a, b, value=v): t + v*a*b, as ATen's CPU
// kernel rounds it; addcmul_ is it in place.
func addcmul(t, a, b *torch.Tensor, v float64) *torch.Tensor {
	return t.Add(a.MulScalar(v).Mul(b))
}

func addcmul_(t, a, b *torch.Tensor, v float64) *torch.Tensor {
	var tmp temps
	defer tmp.release()
	return t.Add_(tmp.add(tmp.add(a.MulScalar(v)).Mul(b)))
}
