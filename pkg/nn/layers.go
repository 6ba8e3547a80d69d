package nn

import (
	"strconv"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Sequential applies its modules in order, as torch.nn.Sequential; its
// parameters are named by position ("0.weight").
type Sequential struct {
	Modules []Module
}

// NewSequential chains modules.
func NewSequential(modules ...Module) *Sequential { return &Sequential{Modules: modules} }

// Forward applies each module to the output of the one before. A nil
// module is an error.
func (s *Sequential) Forward(x *torch.Tensor) *torch.Tensor {
	if s == nil {
		return nilModule("sequential", "Sequential", x)
	}
	for i, m := range s.Modules {
		if m == nil {
			return torch.Failed(torch.NewError("sequential", torch.ErrArgument, []*torch.Tensor{x}, "module %d is nil", i))
		}
		x = m.Forward(x)
	}
	return x
}

// NamedParameters lists the modules' parameters under their positions.
func (s *Sequential) NamedParameters() []Named {
	if s == nil {
		return nil
	}
	var out []Named
	for i, m := range s.Modules {
		if m != nil {
			out = append(out, prefixed(strconv.Itoa(i), m.NamedParameters())...)
		}
	}
	return out
}

// Train sets the mode of every module.
func (s *Sequential) Train(on bool) {
	if s == nil {
		return
	}
	for _, m := range s.Modules {
		if m != nil {
			m.Train(on)
		}
	}
}

// Func is a module without parameters that applies a function.
type Func struct {
	Name string
	F    func(*torch.Tensor) *torch.Tensor
}

// Forward applies the function; a Func without one is an error.
func (f *Func) Forward(x *torch.Tensor) *torch.Tensor {
	if f == nil {
		return nilModule("forward", "Func", x)
	}
	if f.F == nil {
		return torch.Failed(torch.NewError("forward", torch.ErrArgument, []*torch.Tensor{x}, "the Func module %q has no function F", f.Name))
	}
	return f.F(x)
}

// NamedParameters is empty.
func (f *Func) NamedParameters() []Named { return nil }

// Train does nothing.
func (f *Func) Train(bool) {}

// ReLU is the module of max(x, 0).
func ReLU() Module { return &Func{"ReLU", (*torch.Tensor).Relu} }

// Tanh is the module of tanh.
func Tanh() Module { return &Func{"Tanh", (*torch.Tensor).Tanh} }

// Sigmoid is the module of the logistic function.
func Sigmoid() Module { return &Func{"Sigmoid", (*torch.Tensor).Sigmoid} }

// GELU is the module of the exact GELU.
func GELU() Module { return &Func{"GELU", (*torch.Tensor).Gelu} }

// SiLU is the module of x*sigmoid(x).
func SiLU() Module { return &Func{"SiLU", (*torch.Tensor).Silu} }

// LogSoftmax is the module of log_softmax along dim.
func LogSoftmax(dim int) Module {
	return &Func{"LogSoftmax", func(x *torch.Tensor) *torch.Tensor { return x.LogSoftmax(dim) }}
}

// Softmax is the module of softmax along dim.
func Softmax(dim int) Module {
	return &Func{"Softmax", func(x *torch.Tensor) *torch.Tensor { return x.Softmax(dim) }}
}

// Flatten is the module that flattens dims 1 to the last, as nn.Flatten().
func Flatten() Module {
	return &Func{"Flatten", func(x *torch.Tensor) *torch.Tensor { return x.Flatten(1, -1) }}
}

// Dropout zeroes elements with probability P while training and scales
// the rest by 1/(1-P); in evaluation mode it is the identity.
type Dropout struct {
	P        float64
	training bool
}

// NewDropout makes a Dropout module in training mode.
func NewDropout(p float64) *Dropout { return &Dropout{P: p, training: true} }

// Forward applies dropout.
func (d *Dropout) Forward(x *torch.Tensor) *torch.Tensor {
	if d == nil {
		return nilModule("dropout", "Dropout", x)
	}
	if err := inputErr("dropout", x); err != nil {
		return torch.Failed(err)
	}
	if !(d.P >= 0 && d.P <= 1) {
		return torch.Failed(torch.NewError("dropout", torch.ErrArgument, []*torch.Tensor{x},
			"dropout probability has to be between 0 and 1, but got %v", d.P))
	}
	if !d.training || d.P == 0 {
		return x
	}
	if d.P == 1 {
		return x.MulScalar(0)
	}
	// PyTorch draws the mask contiguous, whatever x's layout.
	keep := torch.Empty(x.Shape(), torch.WithDType(x.DType()), torch.OnDevice(x.Device())).Bernoulli_(1 - d.P)
	return x.Mul(keep).DivScalar(1 - d.P)
}

// NamedParameters is empty.
func (d *Dropout) NamedParameters() []Named { return nil }

// Train switches dropout on or off.
func (d *Dropout) Train(on bool) {
	if d != nil {
		d.training = on
	}
}
