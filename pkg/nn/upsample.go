package nn

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mindtorch/mindtorch/internal/pyfmt"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Interpolate is torch.nn.functional.interpolate: x ([N, C, ...]) resized
// to size, or by scaleFactor (one of them nil; one value stands for every
// spatial dim), in mode "nearest" (3-D to 5-D inputs), "linear" (3-D),
// "bilinear" (4-D), "bicubic" (4-D, PyTorch's cubic convolution with
// A = -0.75, edges replicated) or "area" (3-D to 5-D: adaptive average
// pooling to the output size). alignCorners is for the linear modes and
// bicubic.
func Interpolate(x *torch.Tensor, size []int, scaleFactor []float64, mode string, alignCorners bool) *torch.Tensor {
	return interpolate("interpolate", x, size, scaleFactor, mode, alignCorners)
}

func interpolate(op string, x *torch.Tensor, size []int, sf []float64, mode string, align bool) *torch.Tensor {
	if err := inputErr(op, x); err != nil {
		return torch.Failed(err)
	}
	fail := func(kind error, format string, args ...any) *torch.Tensor {
		return torch.Failed(torch.NewError(op, kind, []*torch.Tensor{x}, format, args...))
	}
	if align && mode != "linear" && mode != "bilinear" && mode != "bicubic" {
		return fail(torch.ErrArgument, "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear")
	}
	shape := x.Shape()
	dims := len(shape) - 2
	spatial := shapeList(shape[min(2, len(shape)):])
	switch {
	case size != nil && sf != nil:
		return fail(torch.ErrArgument, "only one of size or scale_factor should be defined")
	case size == nil && sf == nil:
		return fail(torch.ErrArgument, "either size or scale_factor should be defined")
	case len(size) > 1 && len(size) != dims:
		return fail(torch.ErrArgument, "Input and output must have the same number of spatial dimensions, but got input with spatial "+
			"dimensions of %s and output size of %s. Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "+
			"(o1, o2, ...,oK) format.", spatial, shapeList(size))
	case len(sf) > 1 && len(sf) != dims:
		return fail(torch.ErrArgument, "Input and scale_factor must have the same number of spatial dimensions, but got input with "+
			"spatial dimensions of %s and scale_factor of shape %v. Please provide input tensor in (N, C, d1, d2, ...,dK) format and "+
			"scale_factor in (s1, s2, ...,sK) format.", spatial, floatList(sf))
	}
	switch {
	case (mode == "nearest" || mode == "area") && dims >= 1 && dims <= 3, mode == "linear" && dims == 1,
		mode == "bilinear" && dims == 2, mode == "bicubic" && dims == 2:
	case mode == "linear" && dims >= 1 && dims <= 3:
		return fail(torch.ErrNotImplemented, "Got %dD input, but linear mode needs 3D input", len(shape))
	case mode == "bilinear" && dims >= 1 && dims <= 3:
		return fail(torch.ErrNotImplemented, "Got %dD input, but bilinear mode needs 4D input", len(shape))
	default:
		return fail(torch.ErrNotImplemented, "Input Error: Only 3D, 4D and 5D input Tensors supported (got %dD) for the modes: "+
			"nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact (got %s)", len(shape), mode)
	}
	switch {
	case mode == "area" && !x.IsFloatingPoint() && areaByMean(size, dims):
		return fail(torch.ErrDType, "mean(): could not infer output dtype. Input dtype must be either a floating point or "+
			"complex dtype. Got: %s", scalarTypeName(x.DType()))
	case mode == "area" && !x.IsFloatingPoint():
		return fail(torch.ErrDType, "\"adaptive_avg_pool2d\" not implemented for '%s'", scalarTypeName(x.DType()))
	case mode == "bicubic" && (!x.IsFloatingPoint() || x.DType() == torch.Float16):
		return fail(torch.ErrDType, "\"compute_indices_weights_cubic\" not implemented for '%s'", scalarTypeName(x.DType()))
	case !x.IsFloatingPoint() && mode != "nearest":
		return fail(torch.ErrDType, "\"upsample_%s\" not implemented for '%s'", mode, scalarTypeName(x.DType()))
	}
	outs, scales := make([]int, dims), make([]float64, dims) // scale 0: none given
	for i := range dims {
		if size != nil {
			outs[i] = size[min(i, len(size)-1)]
		} else {
			scales[i] = sf[min(i, len(sf)-1)]
			outs[i] = int(math.Floor(float64(shape[2+i]) * scales[i]))
		}
	}
	if mode == "area" {
		return areaResize(x, outs)
	}
	if slices.Contains(shape[2:], 0) || slices.ContainsFunc(outs, func(o int) bool { return o <= 0 }) {
		names := []string{"D", "H", "W"}[3-dims:]
		in, out := make([]string, dims), make([]string, dims)
		for i := range dims {
			in[i], out[i] = fmt.Sprintf("%s: %d", names[i], shape[2+i]), fmt.Sprintf("%s: %d", names[i], outs[i])
		}
		return fail(torch.ErrArgument, "Input and output sizes should be greater than 0, but got input (%s) output (%s)",
			strings.Join(in, ", "), strings.Join(out, ", "))
	}
	single := x.DType() != torch.Float64
	y := x
	for i := range dims {
		in, out := shape[2+i], outs[i]
		var idx [][]int64
		var w [][]float64
		switch mode {
		case "nearest":
			y = y.IndexSelect(2+i, torch.FromSlice(nearestIndex(in, out, scales[i]), torch.OnDevice(x.Device())))
			continue
		case "bicubic":
			idx, w = cubicWeights(in, out, scales[i], align, single)
		default:
			idx, w = linearWeights(in, out, scales[i], align, single)
		}
		y = weightedTaps(y, 2+i, idx, w)
	}
	return y
}

// areaByMean reports whether PyTorch's area mode takes the shortcut of
// adaptive_avg_pool2d to an output of 1x1 (a mean), whose dtype error
// differs.
func areaByMean(size []int, dims int) bool {
	return dims <= 2 && len(size) > 0 && !slices.ContainsFunc(size, func(s int) bool { return s != 1 })
}

// weightedTaps is the sum over k of y's slices idx[k] along dim d, each
// output position weighted by w[k].
func weightedTaps(y *torch.Tensor, d int, idx [][]int64, w [][]float64) *torch.Tensor {
	wshape := make([]int, y.Dim())
	for k := range wshape {
		wshape[k] = 1
	}
	wshape[d] = len(w[0])
	dev := torch.OnDevice(y.Device())
	opts := []torch.Option{torch.WithDType(y.DType()), dev, torch.WithShape(wshape...)}
	var sum *torch.Tensor
	for k := range idx {
		term := y.IndexSelect(d, torch.FromSlice(idx[k], dev)).Mul(torch.FromSlice(w[k], opts...))
		if sum == nil {
			sum = term
		} else {
			sum = sum.Add(term)
		}
	}
	return sum
}

// floatList prints floats as a Python list: [2.0, 3.0].
func floatList(v []float64) string {
	s := make([]string, len(v))
	for i, f := range v {
		s[i] = pyfmt.Float(f)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// Upsample is the module of Interpolate, as torch.nn.Upsample.
type Upsample struct {
	Base
	Size         []int     // nil when ScaleFactor is set
	ScaleFactor  []float64 // nil when Size is set
	Mode         string    // "nearest" (PyTorch's default), "linear", "bilinear", "bicubic" or "area"
	AlignCorners bool
}

// NewUpsample is torch.nn.Upsample(size, scale_factor, mode, align_corners).
func NewUpsample(size []int, scaleFactor []float64, mode string, alignCorners bool) *Upsample {
	return &Upsample{Size: size, ScaleFactor: scaleFactor, Mode: mode, AlignCorners: alignCorners}
}

// Forward resizes x.
func (u *Upsample) Forward(x *torch.Tensor) *torch.Tensor {
	if u == nil {
		return nilModule("Upsample", "Upsample", x)
	}
	return interpolate("Upsample", x, u.Size, u.ScaleFactor, u.Mode, u.AlignCorners)
}

// ExtraRepr is "scale_factor=2.0, mode=nearest" or "size=(4, 5), mode=bilinear".
func (u *Upsample) ExtraRepr() string {
	if u == nil {
		return ""
	}
	var info string
	switch {
	case u.ScaleFactor != nil && len(u.ScaleFactor) == 1:
		info = "scale_factor=" + pyfmt.Float(u.ScaleFactor[0])
	case u.ScaleFactor != nil:
		s := make([]string, len(u.ScaleFactor))
		for i, f := range u.ScaleFactor {
			s[i] = pyfmt.Float(f)
		}
		info = "scale_factor=(" + strings.Join(s, ", ") + ")"
	case len(u.Size) == 1:
		info = fmt.Sprintf("size=%d", u.Size[0])
	default:
		info = "size=" + pyTuple(u.Size)
	}
	return info + ", mode=" + u.Mode
}

// String prints the module as PyTorch does.
func (u *Upsample) String() string { return Repr(u) }

// Dropout2d zeroes whole channels (dim 1) with probability P while training and scales the rest by 1/(1-P), as
// torch.nn.Dropout2d; in evaluation mode it is the identity.
type Dropout2d struct {
	Base
	P float64
}

// NewDropout2d makes a Dropout2d module; PyTorch's default p is 0.5.
func NewDropout2d(p float64) *Dropout2d { return &Dropout2d{P: p} }

// Forward applies channel dropout.
func (d *Dropout2d) Forward(x *torch.Tensor) *torch.Tensor {
	if d == nil {
		return nilModule("dropout2d", "Dropout2d", x)
	}
	return Dropout2dF(x, d.P, !d.eval)
}

// ExtraRepr is "p=0.5, inplace=False".
func (d *Dropout2d) ExtraRepr() string {
	if d == nil {
		return ""
	}
	return "p=" + pyfmt.Float(d.P) + ", inplace=False"
}

// String prints the module as PyTorch does.
func (d *Dropout2d) String() string { return Repr(d) }

// Dropout2dF is torch.nn.functional.dropout2d: channels are dim 1 (a 3-D
// input is [N, C, L], as in PyTorch). The mask is drawn as PyTorch
// draws it (one Bernoulli per channel from the default generator), so a
// seed gives PyTorch's mask.
func Dropout2dF(x *torch.Tensor, p float64, training bool) *torch.Tensor {
	const op = "dropout2d"
	if err := inputErr(op, x); err != nil {
		return torch.Failed(err)
	}
	if !(p >= 0 && p <= 1) {
		return torch.Failed(torch.NewError(op, torch.ErrArgument, []*torch.Tensor{x}, "dropout probability has to be between 0 and 1, but got %v", p))
	}
	if x.Dim() < 2 {
		return torch.Failed(torch.NewError(op, torch.ErrShape, []*torch.Tensor{x}, "Feature dropout requires at least 2 dimensions in the input"))
	}
	if !training || p == 0 || x.Numel() == 0 {
		return x
	}
	if p == 1 {
		return x.MulScalar(0)
	}
	ns := make([]int, x.Dim())
	for i := range ns {
		ns[i] = 1
	}
	ns[0], ns[1] = x.Shape()[0], x.Shape()[1]
	noise := torch.Empty(ns, torch.WithDType(x.DType()), torch.OnDevice(x.Device())).Bernoulli_(1 - p).DivScalar(1 - p)
	return x.Mul(noise)
}
