package optim

import (
	"math"
	"slices"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Option sets one hyperparameter of an optimizer, as a keyword argument of
// torch.optim's constructors does. An option the optimizer does not have
// (Momentum for Adam) is an error, and every value, zero included, means
// what it says: an option not given takes PyTorch's default.
type Option struct {
	name string
	set  func(*settings)
}

// settings are the hyperparameters of every optimizer here.
type settings struct {
	lr, momentum, dampening, weightDecay, eps float64
	betas                                     [2]float64
	nesterov, maximize, amsgrad               bool
}

// LR sets the learning rate (default 1e-3, as PyTorch 2.x's SGD and Adam).
func LR(v float64) Option { return Option{"lr", func(s *settings) { s.lr = v }} }

// Momentum sets SGD's momentum factor (default 0).
func Momentum(v float64) Option { return Option{"momentum", func(s *settings) { s.momentum = v }} }

// Dampening sets SGD's dampening of the momentum (default 0).
func Dampening(v float64) Option { return Option{"dampening", func(s *settings) { s.dampening = v }} }

// WeightDecay sets the weight decay (default 0 for SGD and Adam, 1e-2 for
// AdamW).
func WeightDecay(v float64) Option {
	return Option{"weight_decay", func(s *settings) { s.weightDecay = v }}
}

// Nesterov turns on SGD's Nesterov momentum.
func Nesterov(on bool) Option { return Option{"nesterov", func(s *settings) { s.nesterov = on }} }

// Maximize makes the optimizer ascend the objective instead of descending.
func Maximize(on bool) Option { return Option{"maximize", func(s *settings) { s.maximize = on }} }

// Betas sets Adam's running-average coefficients (default 0.9, 0.999).
func Betas(b1, b2 float64) Option {
	return Option{"betas", func(s *settings) { s.betas = [2]float64{b1, b2} }}
}

// Eps sets the term Adam adds to the denominator (default 1e-8).
func Eps(v float64) Option { return Option{"eps", func(s *settings) { s.eps = v }} }

// AMSGrad turns on Adam's AMSGrad variant.
func AMSGrad(on bool) Option { return Option{"amsgrad", func(s *settings) { s.amsgrad = on }} }

// apply sets s from opts, refusing options outside allowed.
func (s *settings) apply(op string, allowed []string, opts []Option) error {
	for _, o := range opts {
		if o.set == nil {
			return invalid(op, "an Option must be made by one of optim's option functions")
		}
		if !slices.Contains(allowed, o.name) {
			return invalid(op, "%s has no option %s (it takes %v)", op, o.name, allowed)
		}
		o.set(s)
	}
	return s.check(op)
}

// check refuses values PyTorch refuses, and NaN (which PyTorch's checks
// let through, and which would silently turn every parameter into NaN).
func (s *settings) check(op string) error {
	for _, v := range []struct {
		name string
		x    float64
	}{{"learning rate", s.lr}, {"momentum value", s.momentum}, {"dampening value", s.dampening},
		{"weight_decay value", s.weightDecay}, {"epsilon value", s.eps},
		{"beta parameter at index 0", s.betas[0]}, {"beta parameter at index 1", s.betas[1]}} {
		if math.IsNaN(v.x) || math.IsInf(v.x, 0) {
			return invalid(op, "Invalid %s: %v", v.name, v.x)
		}
	}
	switch {
	case s.lr < 0:
		return invalid(op, "Invalid learning rate: %v", s.lr)
	case s.momentum < 0:
		return invalid(op, "Invalid momentum value: %v", s.momentum)
	case s.weightDecay < 0:
		return invalid(op, "Invalid weight_decay value: %v", s.weightDecay)
	case s.eps < 0:
		return invalid(op, "Invalid epsilon value: %v", s.eps)
	case s.betas[0] < 0 || s.betas[0] >= 1:
		return invalid(op, "Invalid beta parameter at index 0: %v", s.betas[0])
	case s.betas[1] < 0 || s.betas[1] >= 1:
		return invalid(op, "Invalid beta parameter at index 1: %v", s.betas[1])
	case s.nesterov && (s.momentum <= 0 || s.dampening != 0):
		return invalid(op, "Nesterov momentum requires a momentum and zero dampening")
	}
	return nil
}

func invalid(op, format string, args ...any) error {
	return torch.NewError(op, torch.ErrArgument, nil, format, args...)
}
