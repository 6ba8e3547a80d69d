package nn

import (
	"fmt"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Pad is torch.nn.functional.pad: pad lists the (left, right) amounts of
// the last dims, last dim first; negative amounts crop. mode is "constant"
// (filled with value), "reflect", "replicate" or "circular"; the last three
// pad the last 1, 2 or 3 dims of a batched or unbatched input.
func Pad(x *torch.Tensor, pad []int, mode string, value float64) *torch.Tensor {
	const op = "pad"
	if err := inputErr(op, x); err != nil {
		return torch.Failed(err)
	}
	fail := func(kind error, format string, args ...any) *torch.Tensor {
		return torch.Failed(torch.NewError(op, kind, []*torch.Tensor{x}, format, args...))
	}
	if len(pad)%2 != 0 {
		return fail(torch.ErrArgument, "Padding length must be divisible by 2")
	}
	n := len(pad) / 2
	if n > x.Dim() {
		return fail(torch.ErrArgument, "Padding length too large")
	}
	shape := x.Shape()
	switch mode {
	case "constant":
		y := x
		for i := range n {
			d := x.Dim() - 1 - i
			l, r := pad[2*i], pad[2*i+1]
			if shape[d]+l+r < 0 {
				return fail(torch.ErrArgument, "The input size %d, plus negative padding %d and %d resulted in a negative output size, "+
					"which is invalid. Check dimension %d of your input.", shape[d], l, r, d)
			}
			y = padConstant(y, d, l, r, value)
		}
		return y
	case "reflect", "replicate", "circular":
	default:
		return fail(torch.ErrNotImplemented, "Unrecognised padding mode %s", mode)
	}
	if n < 1 || n > 3 || x.Dim() != n+1 && x.Dim() != n+2 {
		return fail(torch.ErrNotImplemented, "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now")
	}
	y := x
	for i := range n {
		d := x.Dim() - 1 - i
		s, l, r := shape[d], pad[2*i], pad[2*i+1]
		switch mode {
		case "reflect":
			if l >= s || r >= s {
				// PyTorch's reflection_pad2d prints the input's rank, the
				// other two its shape.
				in := shapeList(shape)
				if n == 2 {
					in = fmt.Sprint(len(shape))
				}
				return fail(torch.ErrArgument, "Argument #%d: Padding size should be less than the corresponding input dimension, but got: "+
					"padding (%d, %d) at dimension %d of input %s", 4+2*i, l, r, d, in)
			}
		case "replicate":
			if s == 0 {
				return fail(torch.ErrArgument, "Expected %dD or %dD (batch mode) tensor with possibly 0 batch size and other non-zero "+
					"dimensions for input, but got: %s", n+1, n+2, shapeList(shape))
			}
		case "circular":
			if l > s || r > s {
				return fail(torch.ErrArgument, "Padding value causes wrapping around more than once.")
			}
		}
		if s+l+r < 0 {
			return fail(torch.ErrArgument, "input tensor is too small for the padding (%d, %d) of dimension %d", l, r, d)
		}
		idx := make([]int64, s+l+r)
		for j := range idx {
			idx[j] = int64(padSource(mode, j-l, s))
		}
		y = y.IndexSelect(d, torch.FromSlice(idx, torch.OnDevice(x.Device())))
	}
	return y
}

// padSource is the input position that output position p (counted from
// the input's start) copies in a dim of size s.
func padSource(mode string, p, s int) int {
	switch mode {
	case "reflect":
		if p < 0 {
			p = -p
		}
		if p >= s {
			p = 2*(s-1) - p
		}
	case "replicate":
		p = max(0, min(p, s-1))
	case "circular":
		p = ((p % s) + s) % s
	}
	return p
}

// padConstant pads (or crops, for negative amounts) dim d of x by l and r
// elements of value.
func padConstant(x *torch.Tensor, d, l, r int, value float64) *torch.Tensor {
	s := x.Shape()[d]
	if l < 0 || r < 0 {
		start, end := max(0, -l), s-max(0, -r)
		x = x.Narrow(d, start, end-start)
	}
	parts := []*torch.Tensor{}
	block := func(k int) *torch.Tensor {
		bs := x.Shape()
		bs[d] = k
		return torch.Full(bs, value, torch.WithDType(x.DType()), torch.OnDevice(x.Device()))
	}
	if l > 0 {
		parts = append(parts, block(l))
	}
	parts = append(parts, x)
	if r > 0 {
		parts = append(parts, block(r))
	}
	if len(parts) == 1 {
		return x
	}
	return torch.Cat(parts, d)
}

// PReLU is max(0, x) + Weight*min(0, x) with a learnt slope per channel
// (dim 1) or one for all, as torch.nn.PReLU.
type PReLU struct {
	Base
	NumParameters int
	Weight        *torch.Tensor // [NumParameters], 0.25 at first
}

// NewPReLU is torch.nn.PReLU(num, init=0.25); PyTorch's default num is 1.
func NewPReLU(num int, opts ...torch.Option) *PReLU {
	return &PReLU{NumParameters: num, Weight: Parameter(torch.Full([]int{max(num, 0)}, 0.25, opts...))}
}

// Forward applies the PReLU.
func (p *PReLU) Forward(x *torch.Tensor) *torch.Tensor {
	if p == nil {
		return nilModule("prelu", "PReLU", x)
	}
	return PReLUF(x, p.Weight)
}

// ExtraRepr is "num_parameters=1".
func (p *PReLU) ExtraRepr() string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("num_parameters=%d", p.NumParameters)
}

// String prints the module as PyTorch does.
func (p *PReLU) String() string { return Repr(p) }

// PReLUF is torch.nn.functional.prelu: x where x > 0, weight*x elsewhere,
// weight holding one slope or one per channel (dim 1).
func PReLUF(x, weight *torch.Tensor) *torch.Tensor {
	const op = "prelu"
	if err := inputErr(op, x, weight); err != nil {
		return torch.Failed(err)
	}
	w := weight
	if k := weight.Numel(); k != 1 {
		c := 1
		if x.Dim() >= 2 {
			c = x.Shape()[1]
		}
		if k != c || weight.Dim() != 1 {
			return torch.Failed(torch.NewError(op, torch.ErrShape, []*torch.Tensor{x, weight},
				"Mismatch of parameter numbers and input channel size. Found parameter numbers = %d and channel size = %d.", k, c))
		}
		w = weight.Reshape(channelShape(c, x.Dim())...)
	} else {
		w = weight.Reshape()
	}
	return torch.Where(x.GtScalar(0), x, w.Mul(x))
}

// GLU is the module of torch.nn.GLU(dim): the first half of the input
// along dim times the sigmoid of the second; PyTorch's default dim is -1.
func GLU(dim int) *Func {
	return fn("GLU", fmt.Sprintf("dim=%d", dim), func(x *torch.Tensor) *torch.Tensor { return GLUF(x, dim) })
}

// GLUF is torch.nn.functional.glu(x, dim).
func GLUF(x *torch.Tensor, dim int) *torch.Tensor {
	const op = "glu"
	if err := inputErr(op, x); err != nil {
		return torch.Failed(err)
	}
	if x.Dim() == 0 {
		return torch.Failed(torch.NewError(op, torch.ErrShape, []*torch.Tensor{x}, "glu does not support scalars because halving size must be even"))
	}
	s, err := x.Size(dim)
	if err != nil {
		return torch.Failed(err)
	}
	if s%2 != 0 {
		d := dim
		if d < 0 {
			d += x.Dim()
		}
		return torch.Failed(torch.NewError(op, torch.ErrShape, []*torch.Tensor{x}, "Halving dimension must be even, but dimension %d is size %d", d, s))
	}
	return x.Narrow(dim, 0, s/2).Mul(x.Narrow(dim, s/2, s/2).Sigmoid())
}
