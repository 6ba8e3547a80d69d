package nn

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mindtorch/mindtorch/internal/pyfmt"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// GroupNorm splits the channels (dim 1) of its input into NumGroups groups
// and normalises each group of each sample to mean 0 and variance 1
// (biased), then scales and shifts each channel, as torch.nn.GroupNorm.
type GroupNorm struct {
	Base
	NumGroups   int
	NumChannels int
	Eps         float64       // 1e-5 at first
	Weight      *torch.Tensor // ones at first; nil without an affine transform
	Bias        *torch.Tensor // zeros at first
}

// NewGroupNorm is torch.nn.GroupNorm(groups, channels, affine=affine);
// PyTorch's default affine is true. channels must be divisible by groups,
// else, as PyTorch's constructor refuses it, the weight and bias carry
// the error and Forward reports it.
func NewGroupNorm(groups, channels int, affine bool, opts ...torch.Option) *GroupNorm {
	g := &GroupNorm{NumGroups: groups, NumChannels: channels, Eps: 1e-5}
	if affine && channels >= 0 {
		if err := g.configErr(nil); err != nil {
			g.Weight, g.Bias = torch.Failed(err), torch.Failed(err)
			return g
		}
		g.Weight = Parameter(torch.Ones([]int{channels}, opts...))
		g.Bias = Parameter(torch.Zeros([]int{channels}, opts...))
	}
	return g
}

// configErr is the error of PyTorch's constructor for the module's
// groups and channels (Python's for a modulo by zero).
func (g *GroupNorm) configErr(x *torch.Tensor) error {
	ts := []*torch.Tensor{x}
	if x == nil {
		ts = nil
	}
	switch {
	case g.NumGroups == 0:
		return torch.NewError("GroupNorm", torch.ErrArgument, ts, "integer modulo by zero")
	case g.NumChannels%g.NumGroups != 0:
		return torch.NewError("GroupNorm", torch.ErrArgument, ts, "num_channels must be divisible by num_groups")
	}
	return nil
}

// Forward normalises x ([N, C, ...]).
func (g *GroupNorm) Forward(x *torch.Tensor) *torch.Tensor {
	if g == nil {
		return nilModule("GroupNorm", "GroupNorm", x)
	}
	if err := inputErr("GroupNorm", x); err != nil {
		return torch.Failed(err)
	}
	if err := g.configErr(x); err != nil {
		return torch.Failed(err)
	}
	return groupNorm("GroupNorm", x, g.NumGroups, g.Weight, g.Bias, g.Eps)
}

// GroupNormF is torch.nn.functional.group_norm: x ([N, C, ...]) normalised
// over groups of C/groups channels, then scaled by weight and shifted by
// bias ([C] each, or nil).
func GroupNormF(x *torch.Tensor, groups int, weight, bias *torch.Tensor, eps float64) *torch.Tensor {
	return groupNorm("group_norm", x, groups, weight, bias, eps)
}

func groupNorm(op string, x *torch.Tensor, groups int, w, b *torch.Tensor, eps float64) *torch.Tensor {
	if err := inputErr(op, x); err != nil {
		return torch.Failed(err)
	}
	if err := optionalErr(w, b); err != nil {
		return torch.Failed(err)
	}
	fail := func(kind error, ts []*torch.Tensor, format string, args ...any) *torch.Tensor {
		return torch.Failed(torch.NewError(op, kind, ts, format, args...))
	}
	s := x.Shape()
	if len(s) < 2 {
		return fail(torch.ErrShape, []*torch.Tensor{x}, "Expected at least 2 dimensions for input tensor but received %d", len(s))
	}
	n, c := s[0], s[1]
	spatial := 1
	for _, d := range s[2:] {
		spatial *= d
	}
	switch {
	case groups == 0:
		return fail(torch.ErrArgument, []*torch.Tensor{x}, "integer division or modulo by zero")
	case n*c/groups*spatial == 1: // PyTorch's _verify_batch_size of [N*C//G, G, *spatial]
		return fail(torch.ErrArgument, []*torch.Tensor{x}, "Expected more than 1 value per channel when training, got input size %s",
			shapeList(append([]int{n * c / groups, groups}, s[2:]...)))
	case groups < 0:
		return fail(torch.ErrArgument, []*torch.Tensor{x}, "Expected num groups to be greater than 0, got %d", groups)
	case c%groups != 0:
		return fail(torch.ErrShape, []*torch.Tensor{x},
			"Expected number of channels in input to be divisible by num_groups, but got input of shape %v and num_groups=%d",
			shapeList(s), groups)
	}
	for i, t := range []*torch.Tensor{w, b} {
		if t != nil && (t.Dim() != 1 || t.Numel() != c) {
			name, shown := []string{"weight", "bias"}[i], t
			if w != nil { // PyTorch prints the weight's shape for the bias too (1.13 and 2.x)
				shown = w
			}
			return fail(torch.ErrShape, []*torch.Tensor{x, t},
				"Expected %s to be a vector of size equal to the number of channels in input, but got %s of shape %v and input of shape %v",
				name, name, shapeList(shown.Shape()), shapeList(s))
		}
	}
	if !x.IsFloatingPoint() {
		return fail(torch.ErrDType, []*torch.Tensor{x}, "\"GroupNormKernelImpl\" not implemented for '%s'", scalarTypeName(x.DType()))
	}
	if fusedNorm(x, []int{c}, w, b) {
		y, _, _ := torch.NativeGroupNorm(x, w, b, groups, eps)
		return y
	}
	g := x.Reshape(n, groups, c/groups*spatial) // sizes given: an empty input has no -1
	mean := g.MeanKeepDim(2)
	v := g.VarCorrection(0, true, 2)
	y := g.Sub(mean).Mul(v.AddScalar(eps).Rsqrt()).Reshape(s...)
	return affine(y, w, b, channelShape(c, len(s)))
}

// shapeList prints a shape as PyTorch's error messages do: [2, 6, 4].
func shapeList(s []int) string {
	out := "["
	for i, d := range s {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprint(d)
	}
	return out + "]"
}

// ExtraRepr is "2, 4, eps=1e-05, affine=True".
func (g *GroupNorm) ExtraRepr() string {
	if g == nil {
		return ""
	}
	return fmt.Sprintf("%d, %d, eps=%s, affine=%s", g.NumGroups, g.NumChannels, pyfmt.Float(g.Eps), pyBool(g.Weight != nil || g.Bias != nil))
}

// String prints the module as PyTorch does.
func (g *GroupNorm) String() string { return Repr(g) }

// RMSNorm divides the last dims of its input by their root mean square
// (plus Eps), then scales by Weight, as PyTorch 2.x's torch.nn.RMSNorm.
type RMSNorm struct {
	Base
	Shape  []int
	Eps    *float64      // nil: the machine epsilon of the input's dtype
	Weight *torch.Tensor // ones at first; nil without an elementwise affine
}

// NewRMSNorm normalises over the trailing dims shape, with eps None.
func NewRMSNorm(shape []int, affine bool, opts ...torch.Option) *RMSNorm {
	r := &RMSNorm{Shape: slices.Clone(shape)}
	if affine {
		r.Weight = Parameter(torch.Ones(shape, opts...))
	}
	return r
}

// Forward normalises x.
func (r *RMSNorm) Forward(x *torch.Tensor) *torch.Tensor {
	if r == nil {
		return nilModule("RMSNorm", "RMSNorm", x)
	}
	return rmsNorm("RMSNorm", x, r.Shape, r.Weight, r.Eps)
}

// RMSNormF is PyTorch 2.x's torch.nn.functional.rms_norm: x divided by the
// root mean square of its trailing dims shape plus eps (nil: the dtype's
// machine epsilon), times weight (nil: none).
func RMSNormF(x *torch.Tensor, shape []int, weight *torch.Tensor, eps *float64) *torch.Tensor {
	return rmsNorm("rms_norm", x, shape, weight, eps)
}

func rmsNorm(op string, x *torch.Tensor, shape []int, w *torch.Tensor, eps *float64) *torch.Tensor {
	if err := inputErr(op, x); err != nil {
		return torch.Failed(err)
	}
	if err := optionalErr(w); err != nil {
		return torch.Failed(err)
	}
	n, s := len(shape), x.Shape()
	if len(s) < n || n > 0 && !slices.Equal(s[len(s)-n:], shape) {
		return torch.Failed(torch.NewError(op, torch.ErrShape, []*torch.Tensor{x},
			"Given normalized_shape=%s, expected input with shape [*, %s], but got input of size%s",
			shapeList(shape), strings.Trim(shapeList(shape), "[]"), shapeList(s)))
	}
	if w != nil && !slices.Equal(w.Shape(), shape) {
		return torch.Failed(torch.NewError(op, torch.ErrShape, []*torch.Tensor{x, w},
			"Expected weight to be of same shape as normalized_shape, but got weight of shape %v and normalized_shape = %v", shapeList(w.Shape()), shapeList(shape)))
	}
	if !x.IsFloatingPoint() {
		return torch.Failed(torch.NewError(op, torch.ErrDType, []*torch.Tensor{x}, "expected a floating point input, got %v", x.DType()))
	}
	e := machineEps(x.DType())
	if eps != nil {
		e = *eps
	}
	dims := make([]int, n)
	for i := range dims {
		dims[i] = -1 - i
	}
	if n > 0 && fusedNorm(x, shape, w) {
		y, _ := torch.FusedRMSNorm(x, shape, w, e)
		return y
	}
	y := x
	if n > 0 {
		y = x.Mul(x.Square().MeanKeepDim(dims...).AddScalar(e).Rsqrt())
	} else {
		y = x.Mul(x.Square().AddScalar(e).Rsqrt())
	}
	if w != nil {
		y = y.Mul(w)
	}
	return y
}

// machineEps is torch.finfo(d).eps.
func machineEps(d torch.DType) float64 {
	switch d {
	case torch.Float16:
		return 0.0009765625
	case torch.BFloat16:
		return 0.0078125
	case torch.Float32:
		return 1.1920928955078125e-07
	}
	return 2.220446049250313e-16
}

// ExtraRepr is "(4,), eps=None, elementwise_affine=True".
func (r *RMSNorm) ExtraRepr() string {
	if r == nil {
		return ""
	}
	e := "None"
	if r.Eps != nil {
		e = pyfmt.Float(*r.Eps)
	}
	return pyTuple(r.Shape) + ", eps=" + e + ", elementwise_affine=" + pyBool(r.Weight != nil)
}

// String prints the module as PyTorch does.
func (r *RMSNorm) String() string { return Repr(r) }
