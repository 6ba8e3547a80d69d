package nn

import (
	"slices"
	"strconv"
	"strings"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The pooling modules: torch.nn.MaxPool1d, MaxPool2d, AvgPool1d,
// AvgPool2d, AdaptiveAvgPool2d and AdaptiveMaxPool2d. Like the
// activations they hold no parameters or buffers, so each is a Func over
// the functional form of pkg/torch/pooling.go (its settings copied),
// printed as PyTorch prints the module.
//
// return_indices=True makes PyTorch's max pooling modules return a tuple,
// which a Layer's Forward cannot: NewMaxPool2dWithIndices and
// NewMaxPool1dWithIndices make a MaxPoolWithIndices, whose
// ForwardWithIndices returns both tensors (and whose Forward, the values
// only, keeps it a Layer).

// MaxPool2d is torch.nn.MaxPool2d(kernel_size, ...): kernelSize and the
// options hold one value for both dims or one per dim (an empty Stride is
// the kernel size, PyTorch's stride=None).
func MaxPool2d(kernelSize []int, o torch.MaxPoolOptions) *Func {
	k, o := slices.Clone(kernelSize), cloneMax(o)
	extra := "kernel_size=" + intOrTuple(k, 0) + ", stride=" + intOrTuple(orDefault(o.Stride, k), 0) +
		", padding=" + intOrTuple(o.Padding, 0) + ", dilation=" + intOrTuple(o.Dilation, 1) + ", ceil_mode=" + pyBool(o.CeilMode)
	return fn("MaxPool2d", extra, func(x *torch.Tensor) *torch.Tensor { return torch.MaxPool2d(x, k, o) })
}

// MaxPool1d is torch.nn.MaxPool1d(kernel_size, ...) over the last dim of
// (N, C, L) or (C, L) inputs; the options hold one value each.
func MaxPool1d(kernelSize int, o torch.MaxPoolOptions) *Func {
	o = cloneMax(o)
	extra := "kernel_size=" + strconv.Itoa(kernelSize) + ", stride=" + intOrTuple(o.Stride, kernelSize) +
		", padding=" + intOrTuple(o.Padding, 0) + ", dilation=" + intOrTuple(o.Dilation, 1) + ", ceil_mode=" + pyBool(o.CeilMode)
	return fn("MaxPool1d", extra, func(x *torch.Tensor) *torch.Tensor { return torch.MaxPool1d(x, kernelSize, o) })
}

// AvgPool2d is torch.nn.AvgPool2d(kernel_size, ...), printed as PyTorch
// prints it: kernel_size, stride and padding only.
func AvgPool2d(kernelSize []int, o torch.AvgPoolOptions) *Func {
	k, o := slices.Clone(kernelSize), cloneAvg(o)
	extra := "kernel_size=" + intOrTuple(k, 0) + ", stride=" + intOrTuple(orDefault(o.Stride, k), 0) + ", padding=" + intOrTuple(o.Padding, 0)
	return fn("AvgPool2d", extra, func(x *torch.Tensor) *torch.Tensor { return torch.AvgPool2d(x, k, o) })
}

// AvgPool1d is torch.nn.AvgPool1d(kernel_size, ...), printed with
// 1-tuples as PyTorch keeps its arguments.
func AvgPool1d(kernelSize int, o torch.AvgPoolOptions) *Func {
	o = cloneAvg(o)
	extra := "kernel_size=(" + strconv.Itoa(kernelSize) + ",), stride=(" + intOrTuple(o.Stride, kernelSize) +
		",), padding=(" + intOrTuple(o.Padding, 0) + ",)"
	return fn("AvgPool1d", extra, func(x *torch.Tensor) *torch.Tensor { return torch.AvgPool1d(x, kernelSize, o) })
}

// AdaptiveAvgPool2d is torch.nn.AdaptiveAvgPool2d(output_size): one size
// for both dims or one per dim.
func AdaptiveAvgPool2d(outputSize ...int) *Func {
	s := slices.Clone(outputSize)
	return fn("AdaptiveAvgPool2d", "output_size="+intOrTuple(s, 0), func(x *torch.Tensor) *torch.Tensor { return torch.AdaptiveAvgPool2d(x, s) })
}

// AdaptiveMaxPool2d is torch.nn.AdaptiveMaxPool2d(output_size) without
// return_indices.
func AdaptiveMaxPool2d(outputSize ...int) *Func {
	s := slices.Clone(outputSize)
	return fn("AdaptiveMaxPool2d", "output_size="+intOrTuple(s, 0), func(x *torch.Tensor) *torch.Tensor {
		y, _ := torch.AdaptiveMaxPool2d(x, s)
		return y
	})
}

// MaxPoolWithIndices is torch.nn.MaxPool2d or MaxPool1d with
// return_indices=True: ForwardWithIndices returns the values and the
// indices (each a flat index into its input plane, as PyTorch's, for
// torch.MaxUnpool-style use); Forward returns the values only, so that it
// can sit in a Sequential. It holds no parameters or buffers. Its String
// is PyTorch's print of the module ("MaxPool2d(kernel_size=2, ...)";
// PyTorch does not print return_indices), inside a container's print
// too.
type MaxPoolWithIndices struct {
	Base
	nd     int // 1 or 2; 0: a MaxPoolWithIndices not made by its constructors
	kernel []int
	opts   torch.MaxPoolOptions
}

// NewMaxPool2dWithIndices is torch.nn.MaxPool2d(kernel_size, ...,
// return_indices=True), with the arguments of MaxPool2d.
func NewMaxPool2dWithIndices(kernelSize []int, o torch.MaxPoolOptions) *MaxPoolWithIndices {
	return &MaxPoolWithIndices{nd: 2, kernel: slices.Clone(kernelSize), opts: cloneMax(o)}
}

// NewMaxPool1dWithIndices is torch.nn.MaxPool1d(kernel_size, ...,
// return_indices=True), with the arguments of MaxPool1d.
func NewMaxPool1dWithIndices(kernelSize int, o torch.MaxPoolOptions) *MaxPoolWithIndices {
	return &MaxPoolWithIndices{nd: 1, kernel: []int{kernelSize}, opts: cloneMax(o)}
}

// ForwardWithIndices pools x ([N, C, H, W] or [C, H, W] for the 2-d
// form, [N, C, L] or [C, L] for the 1-d one) and returns the maxima and
// their indices, as PyTorch's module returns the tuple.
func (m *MaxPoolWithIndices) ForwardWithIndices(x *torch.Tensor) (values, indices *torch.Tensor) {
	var f *torch.Tensor
	switch {
	case m == nil:
		f = nilModule("max_pool", "MaxPoolWithIndices", x)
	case m.nd == 2:
		return torch.MaxPool2dWithIndices(x, m.kernel, cloneMax(m.opts))
	case m.nd == 1 && len(m.kernel) == 1:
		return torch.MaxPool1dWithIndices(x, m.kernel[0], cloneMax(m.opts))
	default:
		f = torch.Failed(torch.NewError("max_pool", torch.ErrArgument, []*torch.Tensor{x},
			"the MaxPoolWithIndices module was not made by NewMaxPool2dWithIndices or NewMaxPool1dWithIndices"))
	}
	return f, f
}

// Forward is the values of ForwardWithIndices.
func (m *MaxPoolWithIndices) Forward(x *torch.Tensor) *torch.Tensor {
	y, _ := m.ForwardWithIndices(x)
	return y
}

// ExtraRepr is PyTorch's, as MaxPool2d's and MaxPool1d's (PyTorch does
// not print return_indices).
func (m *MaxPoolWithIndices) ExtraRepr() string {
	if m == nil || m.nd == 0 || len(m.kernel) == 0 {
		return ""
	}
	o := m.opts
	k := intOrTuple(m.kernel, 0)
	return "kernel_size=" + k + ", stride=" + intOrTuple(orDefault(o.Stride, m.kernel), 0) +
		", padding=" + intOrTuple(o.Padding, 0) + ", dilation=" + intOrTuple(o.Dilation, 1) +
		", ceil_mode=" + pyBool(o.CeilMode)
}

// String prints the module as PyTorch does: "MaxPool2d(kernel_size=2,
// stride=2, padding=0, dilation=1, ceil_mode=False)".
func (m *MaxPoolWithIndices) String() string { return Repr(m) }

// pyName is PyTorch's class name, which a container prints too.
func (m *MaxPoolWithIndices) pyName() string {
	switch m.nd {
	case 1:
		return "MaxPool1d"
	case 2:
		return "MaxPool2d"
	}
	return ""
}

func cloneMax(o torch.MaxPoolOptions) torch.MaxPoolOptions {
	o.Stride, o.Padding, o.Dilation = slices.Clone(o.Stride), slices.Clone(o.Padding), slices.Clone(o.Dilation)
	return o
}

func cloneAvg(o torch.AvgPoolOptions) torch.AvgPoolOptions {
	o.Stride, o.Padding = slices.Clone(o.Stride), slices.Clone(o.Padding)
	if o.DivisorOverride != nil {
		d := *o.DivisorOverride
		o.DivisorOverride = &d
	}
	return o
}

// intOrTuple prints a size argument as PyTorch keeps it: one value as an
// int, several as a tuple; none as def.
func intOrTuple(v []int, def int) string {
	switch len(v) {
	case 0:
		return strconv.Itoa(def)
	case 1:
		return strconv.Itoa(v[0])
	}
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.Itoa(x)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// orDefault is v, or def when v is empty.
func orDefault(v, def []int) []int {
	if len(v) == 0 {
		return def
	}
	return v
}
