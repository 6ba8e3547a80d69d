package optim

import (
	"fmt"
	"math"
	"slices"

	"github.com/mindtorch/mindtorch/internal/pyfmt"

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

// settings are the hyperparameters of every optimizer here: one set per
// parameter group.
type settings struct {
	lr, momentum, dampening, weightDecay, eps float64
	alpha, lrDecay, initialAccumulator        float64
	momentumDecay                             float64
	betas                                     [2]float64
	nesterov, maximize, amsgrad, centered     bool
	decoupled                                 bool // AdamW's weight decay (not an option)
}

// LR sets the learning rate (PyTorch's defaults: 1e-3 for SGD, Adam, AdamW
// and RAdam, 1e-2 for RMSprop and Adagrad, 2e-3 for Adamax and NAdam).
func LR(v float64) Option { return Option{"lr", func(s *settings) { s.lr = v }} }

// Momentum sets the momentum factor of SGD and RMSprop (default 0).
func Momentum(v float64) Option { return Option{"momentum", func(s *settings) { s.momentum = v }} }

// Dampening sets SGD's dampening of the momentum (default 0).
func Dampening(v float64) Option { return Option{"dampening", func(s *settings) { s.dampening = v }} }

// WeightDecay sets the weight decay (default 0; 1e-2 for AdamW).
func WeightDecay(v float64) Option {
	return Option{"weight_decay", func(s *settings) { s.weightDecay = v }}
}

// Nesterov turns on SGD's Nesterov momentum.
func Nesterov(on bool) Option { return Option{"nesterov", func(s *settings) { s.nesterov = on }} }

// Maximize makes the optimizer ascend the objective instead of descending.
func Maximize(on bool) Option { return Option{"maximize", func(s *settings) { s.maximize = on }} }

// Betas sets the running-average coefficients of Adam, AdamW, Adamax, NAdam
// and RAdam (default 0.9, 0.999).
func Betas(b1, b2 float64) Option {
	return Option{"betas", func(s *settings) { s.betas = [2]float64{b1, b2} }}
}

// Eps sets the term added to the denominator (default 1e-8; 1e-10 for
// Adagrad).
func Eps(v float64) Option { return Option{"eps", func(s *settings) { s.eps = v }} }

// AMSGrad turns on the AMSGrad variant of Adam and AdamW.
func AMSGrad(on bool) Option { return Option{"amsgrad", func(s *settings) { s.amsgrad = on }} }

// Alpha sets RMSprop's smoothing constant (default 0.99).
func Alpha(v float64) Option { return Option{"alpha", func(s *settings) { s.alpha = v }} }

// Centered makes RMSprop normalise by an estimate of the gradient's
// variance instead of its second moment.
func Centered(on bool) Option { return Option{"centered", func(s *settings) { s.centered = on }} }

// LRDecay sets Adagrad's learning-rate decay (default 0).
func LRDecay(v float64) Option { return Option{"lr_decay", func(s *settings) { s.lrDecay = v }} }

// InitialAccumulatorValue sets the starting value of Adagrad's sums of
// squares (default 0).
func InitialAccumulatorValue(v float64) Option {
	return Option{"initial_accumulator_value", func(s *settings) { s.initialAccumulator = v }}
}

// MomentumDecay sets NAdam's momentum decay (default 4e-3).
func MomentumDecay(v float64) Option {
	return Option{"momentum_decay", func(s *settings) { s.momentumDecay = v }}
}

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

// check refuses values PyTorch refuses, and NaN or infinities (which
// PyTorch's checks let through, and which would silently turn every
// parameter into NaN).
func (s *settings) check(op string) error {
	for _, v := range []struct {
		name string
		x    float64
	}{{"learning rate", s.lr}, {"momentum value", s.momentum}, {"dampening value", s.dampening},
		{"weight_decay value", s.weightDecay}, {"epsilon value", s.eps},
		{"beta parameter at index 0", s.betas[0]}, {"beta parameter at index 1", s.betas[1]},
		{"alpha value", s.alpha}, {"lr_decay value", s.lrDecay},
		{"initial_accumulator_value value", s.initialAccumulator}, {"momentum_decay value", s.momentumDecay}} {
		if math.IsNaN(v.x) || math.IsInf(v.x, 0) {
			return invalid(op, "Invalid %s: %s", v.name, pyfmt.Float(v.x))
		}
	}
	switch {
	case s.lr < 0:
		return invalid(op, "Invalid learning rate: %s", pyfmt.Float(s.lr))
	case s.momentum < 0:
		return invalid(op, "Invalid momentum value: %s", pyfmt.Float(s.momentum))
	case s.weightDecay < 0:
		return invalid(op, "Invalid weight_decay value: %s", pyfmt.Float(s.weightDecay))
	case s.eps < 0:
		return invalid(op, "Invalid epsilon value: %s", pyfmt.Float(s.eps))
	case s.betas[0] < 0 || s.betas[0] >= 1:
		return invalid(op, "Invalid beta parameter at index 0: %s", pyfmt.Float(s.betas[0]))
	case s.betas[1] < 0 || s.betas[1] >= 1:
		return invalid(op, "Invalid beta parameter at index 1: %s", pyfmt.Float(s.betas[1]))
	case s.alpha < 0:
		return invalid(op, "Invalid alpha value: %s", pyfmt.Float(s.alpha))
	case s.lrDecay < 0:
		return invalid(op, "Invalid lr_decay value: %s", pyfmt.Float(s.lrDecay))
	case s.initialAccumulator < 0:
		return invalid(op, "Invalid initial_accumulator_value value: %s", pyfmt.Float(s.initialAccumulator))
	case s.momentumDecay < 0:
		return invalid(op, "Invalid momentum_decay value: %s", pyfmt.Float(s.momentumDecay))
	case s.nesterov && (s.momentum <= 0 || s.dampening != 0):
		return invalid(op, "Nesterov momentum requires a momentum and zero dampening")
	}
	return nil
}

// value is the hyperparameter name (one of the option names) as PyTorch's
// param_groups hold it: float64, bool or [2]float64 for betas.
func (s *settings) value(name string) any {
	switch name {
	case "lr":
		return s.lr
	case "momentum":
		return s.momentum
	case "dampening":
		return s.dampening
	case "weight_decay":
		return s.weightDecay
	case "eps":
		return s.eps
	case "alpha":
		return s.alpha
	case "lr_decay":
		return s.lrDecay
	case "initial_accumulator_value":
		return s.initialAccumulator
	case "momentum_decay":
		return s.momentumDecay
	case "betas":
		return s.betas
	case "nesterov":
		return s.nesterov
	case "maximize":
		return s.maximize
	case "amsgrad":
		return s.amsgrad
	case "centered":
		return s.centered
	}
	return nil
}

// setValue sets the hyperparameter name from v, as value returns it (an
// int is taken for a float, a []float64 of two for betas).
func (s *settings) setValue(name string, v any) error {
	f, isFloat := toFloat(v)
	b, isBool := v.(bool)
	ptrs := map[string]*float64{"lr": &s.lr, "momentum": &s.momentum, "dampening": &s.dampening,
		"weight_decay": &s.weightDecay, "eps": &s.eps, "alpha": &s.alpha, "lr_decay": &s.lrDecay,
		"initial_accumulator_value": &s.initialAccumulator, "momentum_decay": &s.momentumDecay}
	flags := map[string]*bool{"nesterov": &s.nesterov, "maximize": &s.maximize, "amsgrad": &s.amsgrad, "centered": &s.centered}
	switch {
	case ptrs[name] != nil && isFloat:
		*ptrs[name] = f
	case flags[name] != nil && isBool:
		*flags[name] = b
	case name == "betas":
		switch x := v.(type) {
		case [2]float64:
			s.betas = x
		case []float64:
			if len(x) != 2 {
				return fmt.Errorf("betas has %d values, not 2", len(x))
			}
			s.betas = [2]float64{x[0], x[1]}
		default:
			return fmt.Errorf("betas is a %T, not a [2]float64", v)
		}
	default:
		return fmt.Errorf("%s is a %T", name, v)
	}
	return nil
}

// toFloat reads a float64 or an int.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return 0, false
}

func invalid(op, format string, args ...any) error {
	return torch.NewError(op, torch.ErrArgument, nil, format, args...)
}
