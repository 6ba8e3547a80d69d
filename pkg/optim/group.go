package optim

import (
	"math"
	"slices"

	"github.com/mindtorch/mindtorch/internal/pyfmt"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// ParamGroup is one of an optimizer's parameter groups, as an entry of
// PyTorch's optimizer.param_groups: parameters and their hyperparameters.
// LR schedulers change a group's learning rate and momentum through it.
type ParamGroup struct {
	params    []*torch.Tensor
	s         settings
	optName   string   // the optimizer's name, for errors
	allowed   []string // the optimizer's options
	initialLR *float64 // PyTorch's group["initial_lr"], set by LR schedulers
}

// Params are the group's parameters (a copy of the list).
func (g *ParamGroup) Params() []*torch.Tensor {
	if g == nil {
		return nil
	}
	return slices.Clone(g.params)
}

// LR is the group's learning rate (0 for a nil group).
func (g *ParamGroup) LR() float64 {
	if g == nil {
		return 0
	}
	return g.s.lr
}

// SetLR changes the group's learning rate. As PyTorch, which checks a
// group's values only when making the optimizer, it takes a negative rate
// (OneCycleLR extrapolates to one past its last step); an infinite or NaN
// rate is an error and changes nothing.
func (g *ParamGroup) SetLR(lr float64) error {
	if g == nil {
		return invalid("ParamGroup", "SetLR called on a nil *ParamGroup")
	}
	if math.IsNaN(lr) || math.IsInf(lr, 0) {
		return invalid(g.op(), "Invalid learning rate: %s", pyfmt.Float(lr))
	}
	g.s.lr = lr
	return nil
}

// Momentum is the group's momentum, and whether the optimizer has one
// (SGD, RMSprop).
func (g *ParamGroup) Momentum() (float64, bool) {
	if g == nil || !slices.Contains(g.allowed, "momentum") {
		return 0, false
	}
	return g.s.momentum, true
}

// SetMomentum changes the group's momentum (an error for an optimizer
// without one, or a negative, infinite or NaN value).
func (g *ParamGroup) SetMomentum(m float64) error {
	if err := g.has("SetMomentum", "momentum"); err != nil {
		return err
	}
	return g.change("SetMomentum", func(s *settings) { s.momentum = m })
}

// Betas are the group's betas, and whether the optimizer has them (Adam,
// AdamW, Adamax, NAdam, RAdam).
func (g *ParamGroup) Betas() ([2]float64, bool) {
	if g == nil || !slices.Contains(g.allowed, "betas") {
		return [2]float64{}, false
	}
	return g.s.betas, true
}

// SetBetas changes the group's betas (an error for an optimizer without
// them, or values outside [0, 1)).
func (g *ParamGroup) SetBetas(b1, b2 float64) error {
	if err := g.has("SetBetas", "betas"); err != nil {
		return err
	}
	return g.change("SetBetas", func(s *settings) { s.betas = [2]float64{b1, b2} })
}

// InitialLR is PyTorch's group["initial_lr"], which LR schedulers set,
// and whether it is set.
func (g *ParamGroup) InitialLR() (float64, bool) {
	if g == nil || g.initialLR == nil {
		return 0, false
	}
	return *g.initialLR, true
}

// SetInitialLR sets group["initial_lr"]; a negative, infinite or NaN rate
// is an error.
func (g *ParamGroup) SetInitialLR(lr float64) error {
	if g == nil {
		return invalid("ParamGroup", "SetInitialLR called on a nil *ParamGroup")
	}
	s := settings{lr: lr}
	if err := s.check(g.op()); err != nil {
		return err
	}
	g.initialLR = &lr
	return nil
}

// has is an error when the group's optimizer has no option name.
func (g *ParamGroup) has(method, name string) error {
	if g == nil {
		return invalid("ParamGroup", "%s called on a nil *ParamGroup", method)
	}
	if !slices.Contains(g.allowed, name) {
		return invalid(g.op(), "%s: %s has no %s", method, g.op(), name)
	}
	return nil
}

// change applies set to a copy of the settings and keeps it if valid.
func (g *ParamGroup) change(method string, set func(*settings)) error {
	if g == nil {
		return invalid("ParamGroup", "%s called on a nil *ParamGroup", method)
	}
	s := g.s
	set(&s)
	s.nesterov = false // PyTorch checks Nesterov's requirements at construction only
	if err := s.check(g.op()); err != nil {
		return err
	}
	s.nesterov = g.s.nesterov
	g.s = s
	return nil
}

// op names the group's optimizer in errors ("ParamGroup" for a zero group).
func (g *ParamGroup) op() string {
	if g.optName == "" {
		return "ParamGroup"
	}
	return g.optName
}
