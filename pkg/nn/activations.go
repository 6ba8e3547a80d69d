package nn

import (
	"fmt"
	"strconv"

	"github.com/mindtorch/mindtorch/internal/pyfmt"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Func is a module without state that applies a function: the activations
// below, or any function of one tensor. It prints as Name(Extra).
type Func struct {
	Base
	Name  string // the name it prints with: "ReLU"
	Extra string // its settings, as PyTorch's extra_repr: "negative_slope=0.01"
	F     func(*torch.Tensor) *torch.Tensor
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

// ExtraRepr is f's settings.
func (f *Func) ExtraRepr() string {
	if f == nil {
		return ""
	}
	return f.Extra
}

// String prints the module as PyTorch does: "LeakyReLU(negative_slope=0.2)".
func (f *Func) String() string { return Repr(f) }

func (f *Func) pyName() string { return f.Name }

func fn(name, extra string, f func(*torch.Tensor) *torch.Tensor) *Func {
	return &Func{Name: name, Extra: extra, F: f}
}

// ReLU is the module of max(x, 0), as torch.nn.ReLU.
func ReLU() *Func { return fn("ReLU", "", (*torch.Tensor).Relu) }

// ReLU6 is the module of min(max(x, 0), 6), as torch.nn.ReLU6.
func ReLU6() *Func { return fn("ReLU6", "", (*torch.Tensor).Relu6) }

// GELU is the module of the exact GELU, as torch.nn.GELU().
func GELU() *Func { return fn("GELU", "approximate='none'", (*torch.Tensor).Gelu) }

// GELUTanh is the module of GELU's tanh approximation, as
// torch.nn.GELU(approximate='tanh').
func GELUTanh() *Func { return fn("GELU", "approximate='tanh'", (*torch.Tensor).GeluTanh) }

// SiLU is the module of x*sigmoid(x), as torch.nn.SiLU.
func SiLU() *Func { return fn("SiLU", "", (*torch.Tensor).Silu) }

// Sigmoid is the module of the logistic function, as torch.nn.Sigmoid.
func Sigmoid() *Func { return fn("Sigmoid", "", (*torch.Tensor).Sigmoid) }

// Tanh is the module of tanh, as torch.nn.Tanh.
func Tanh() *Func { return fn("Tanh", "", (*torch.Tensor).Tanh) }

// LeakyReLU is the module of max(x, 0) + slope*min(x, 0), as
// torch.nn.LeakyReLU(negative_slope); PyTorch's default slope is 0.01.
func LeakyReLU(slope float64) *Func {
	return fn("LeakyReLU", "negative_slope="+pyfmt.Float(slope), func(x *torch.Tensor) *torch.Tensor { return x.LeakyRelu(slope) })
}

// ELU is the module of x for x > 0 and alpha*(exp(x)-1) below, as
// torch.nn.ELU(alpha); PyTorch's default alpha is 1.
func ELU(alpha float64) *Func {
	return fn("ELU", "alpha="+pyfmt.Float(alpha), func(x *torch.Tensor) *torch.Tensor { return x.Elu(alpha) })
}

// SELU is the module of the scaled ELU, as torch.nn.SELU.
func SELU() *Func { return fn("SELU", "", (*torch.Tensor).Selu) }

// CELU is the module of max(0, x) + min(0, alpha*(exp(x/alpha)-1)), as
// torch.nn.CELU(alpha); PyTorch's default alpha is 1.
func CELU(alpha float64) *Func {
	return fn("CELU", "alpha="+pyfmt.Float(alpha), func(x *torch.Tensor) *torch.Tensor { return x.Celu(alpha) })
}

// Hardtanh is the module of x clamped to [minVal, maxVal], as
// torch.nn.Hardtanh; PyTorch's defaults are -1 and 1.
func Hardtanh(minVal, maxVal float64) *Func {
	return fn("Hardtanh", "min_val="+pyfmt.Float(minVal)+", max_val="+pyfmt.Float(maxVal),
		func(x *torch.Tensor) *torch.Tensor { return x.Hardtanh(minVal, maxVal) })
}

// Hardswish is the module of x*relu6(x+3)/6, as torch.nn.Hardswish.
func Hardswish() *Func { return fn("Hardswish", "", (*torch.Tensor).Hardswish) }

// Hardsigmoid is the module of relu6(x+3)/6, as torch.nn.Hardsigmoid.
func Hardsigmoid() *Func { return fn("Hardsigmoid", "", (*torch.Tensor).Hardsigmoid) }

// Mish is the module of x*tanh(softplus(x)), as torch.nn.Mish.
func Mish() *Func { return fn("Mish", "", (*torch.Tensor).Mish) }

// Softplus is the module of log(1+exp(beta*x))/beta, linear where
// beta*x > threshold, as torch.nn.Softplus; PyTorch's defaults are 1 and
// 20 (whole numbers print as PyTorch prints its integer defaults).
func Softplus(beta, threshold float64) *Func {
	return fn("Softplus", "beta="+pyNumber(beta)+", threshold="+pyNumber(threshold),
		func(x *torch.Tensor) *torch.Tensor { return x.Softplus(beta, threshold) })
}

// LogSigmoid is the module of log(sigmoid(x)), as torch.nn.LogSigmoid.
func LogSigmoid() *Func { return fn("LogSigmoid", "", (*torch.Tensor).LogSigmoid) }

// Softsign is the module of x/(1+|x|), as torch.nn.Softsign.
func Softsign() *Func { return fn("Softsign", "", (*torch.Tensor).Softsign) }

// Identity is the module that returns its input, as torch.nn.Identity.
func Identity() *Func {
	return fn("Identity", "", func(x *torch.Tensor) *torch.Tensor {
		if err := inputErr("identity", x); err != nil {
			return torch.Failed(err)
		}
		return x
	})
}

// Softmax is the module of softmax along dim, as torch.nn.Softmax(dim).
func Softmax(dim int) *Func {
	return fn("Softmax", fmt.Sprintf("dim=%d", dim), func(x *torch.Tensor) *torch.Tensor { return x.Softmax(dim) })
}

// LogSoftmax is the module of log_softmax along dim, as
// torch.nn.LogSoftmax(dim).
func LogSoftmax(dim int) *Func {
	return fn("LogSoftmax", fmt.Sprintf("dim=%d", dim), func(x *torch.Tensor) *torch.Tensor { return x.LogSoftmax(dim) })
}

// Flatten is the module that flattens dims startDim to endDim into one,
// as torch.nn.Flatten; PyTorch's defaults are 1 and -1.
func Flatten(startDim, endDim int) *Func {
	return fn("Flatten", fmt.Sprintf("start_dim=%d, end_dim=%d", startDim, endDim),
		func(x *torch.Tensor) *torch.Tensor { return x.Flatten(startDim, endDim) })
}

// Unflatten is the module that splits dim into sizes, as
// torch.nn.Unflatten(dim, sizes).
func Unflatten(dim int, sizes ...int) *Func {
	sizes = append([]int(nil), sizes...)
	return fn("Unflatten", fmt.Sprintf("dim=%d, unflattened_size=%s", dim, pyTuple(sizes)),
		func(x *torch.Tensor) *torch.Tensor { return x.Unflatten(dim, sizes...) })
}

// pyNumber prints a whole v as an int, else as a float.
func pyNumber(v float64) string {
	if v > -1e15 && v < 1e15 && v == float64(int64(v)) {
		return strconv.FormatInt(int64(v), 10)
	}
	return pyfmt.Float(v)
}
