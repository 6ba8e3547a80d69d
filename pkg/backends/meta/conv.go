package meta

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.RegisterMeta(kernel.OpConv2d, Conv2d)
	kernel.RegisterMeta(kernel.OpConv2dBackwardInput, Conv2dBackwardInput)
	kernel.RegisterMeta(kernel.OpConv2dBackwardWeight, Conv2dBackwardWeight)
}

// ConvParams are the attributes of the convolution ops (Call.Ints).
type ConvParams struct {
	SH, SW         int // stride
	PT, PL, PB, PR int // padding: top, left, bottom, right
	DH, DW         int // dilation
	Groups         int
	X, Y           int // backward input: the input's H, W; backward weight: kH, kW
}

// ConvParamsOf reads a convolution call's Ints.
func ConvParamsOf(c *kernel.Call) (ConvParams, error) {
	n := 9
	if c.Op != kernel.OpConv2d {
		n = 11
	}
	if len(c.Ints) != n {
		return ConvParams{}, kernel.Errorf(kernel.ErrArgument, "%s: expected %d integer attributes, got %d", c.Op, n, len(c.Ints))
	}
	v := c.Ints
	p := ConvParams{SH: v[0], SW: v[1], PT: v[2], PL: v[3], PB: v[4], PR: v[5], DH: v[6], DW: v[7], Groups: v[8]}
	if n == 11 {
		p.X, p.Y = v[9], v[10]
	}
	switch {
	case p.SH <= 0 || p.SW <= 0:
		return p, kernel.Errorf(kernel.ErrArgument, "non-positive stride is not supported")
	case p.PT < 0 || p.PL < 0 || p.PB < 0 || p.PR < 0:
		return p, kernel.Errorf(kernel.ErrArgument, "negative padding is not supported")
	case p.DH <= 0 || p.DW <= 0:
		return p, kernel.Errorf(kernel.ErrArgument, "non-positive dilation is not supported")
	case p.Groups <= 0:
		return p, kernel.Errorf(kernel.ErrArgument, "non-positive groups is not supported")
	case p.X < 0 || p.Y < 0:
		return p, kernel.Errorf(kernel.ErrArgument, "%s: negative size [%d, %d]", c.Op, p.X, p.Y)
	}
	return p, nil
}

// ConvOutSize is the output size of a convolution along one dim, or a
// value below 1 when the dilated kernel exceeds the padded input.
func ConvOutSize(in, padBefore, padAfter, k, dil, stride int) int {
	span := dil*(k-1) + 1
	padded := in + padBefore + padAfter
	if padded < span {
		return 0
	}
	return (padded-span)/stride + 1
}

// convDType checks that the operands have one dtype a convolution computes
// in, as PyTorch's CPU: floats but float16, and integers.
func convDType(a, b *kernel.Operand, what string) error {
	if a.DType != b.DType {
		if what == "bias" {
			return kernel.Errorf(kernel.ErrDType, "Input type (%s) and bias type (%s) should be the same",
				kernel.PyName(a.DType), kernel.PyName(b.DType))
		}
		return kernel.Errorf(kernel.ErrDType, "Input type (%s) and %s type (%s) should be the same",
			kernel.PyName(a.DType), what, kernel.PyName(b.DType))
	}
	switch a.DType {
	case dtype.Float16:
		return kernel.Errorf(kernel.ErrDType, "\"slow_conv2d_cpu\" not implemented for 'Half'")
	case dtype.Bool:
		return kernel.Errorf(kernel.ErrDType, "\"slow_conv2d_cpu\" not implemented for 'Bool'")
	}
	return nil
}

// checkConvShapes checks input [N, C, H, W] against weight [O, C/g, kH, kW]
// with PyTorch's messages and returns the output's spatial size.
func checkConvShapes(in, w []int, p ConvParams) (oh, ow int, err error) {
	if len(in) != 4 || len(w) != 4 {
		return 0, 0, kernel.Errorf(kernel.ErrShape, "Expected 4-dimensional input for 4-dimensional weight %s, but got %d-dimensional input of size %s instead",
			kernel.ShapeString(w), len(in), kernel.ShapeString(in))
	}
	if w[0] < p.Groups {
		return 0, 0, kernel.Errorf(kernel.ErrShape, "Given groups=%d, expected weight to be at least %d at dimension 0, but got weight of size [%s] instead",
			p.Groups, p.Groups, kernel.ShapeString(w))
	}
	if w[0]%p.Groups != 0 {
		return 0, 0, kernel.Errorf(kernel.ErrShape, "Given groups=%d, expected weight to be divisible by %d at dimension 0, but got weight of size [%s] instead",
			p.Groups, p.Groups, kernel.ShapeString(w))
	}
	if in[1] != w[1]*p.Groups {
		return 0, 0, kernel.Errorf(kernel.ErrShape, "Given groups=%d, weight of size %s, expected input%s to have %d channels, but got %d channels instead",
			p.Groups, kernel.ShapeString(w), kernel.ShapeString(in), w[1]*p.Groups, in[1])
	}
	oh = ConvOutSize(in[2], p.PT, p.PB, w[2], p.DH, p.SH)
	ow = ConvOutSize(in[3], p.PL, p.PR, w[3], p.DW, p.SW)
	if oh < 1 || ow < 1 {
		return 0, 0, kernel.Errorf(kernel.ErrShape, "Calculated padded input size per channel: (%d x %d). Kernel size: (%d x %d). Kernel size can't be greater than actual input size",
			in[2]+p.PT+p.PB, in[3]+p.PL+p.PR, p.DH*(w[2]-1)+1, p.DW*(w[3]-1)+1)
	}
	return oh, ow, nil
}

// Conv2d is the meta function of the 2-D convolution: PyTorch's shape
// rules (check_shape_forward) on a batched input.
func Conv2d(c *kernel.Call) error {
	if len(c.In) < 2 || len(c.In) > 3 {
		return kernel.Errorf(kernel.ErrArgument, "convolution takes an input, a weight and an optional bias, got %d tensors", len(c.In))
	}
	p, err := ConvParamsOf(c)
	if err != nil {
		return err
	}
	x, w := &c.In[0], &c.In[1]
	if err := convDType(x, w, "weight"); err != nil {
		return err
	}
	oh, ow, err := checkConvShapes(x.Shape, w.Shape, p)
	if err != nil {
		return err
	}
	if len(c.In) == 3 {
		b := &c.In[2]
		if len(b.Shape) != 1 || b.Shape[0] != w.Shape[0] {
			return kernel.Errorf(kernel.ErrShape, "Given weight of size %s, expected bias to be 1-dimensional with %d elements, but got bias of size %s instead",
				kernel.ShapeString(w.Shape), w.Shape[0], kernel.ShapeString(b.Shape))
		}
		if err := convDType(x, b, "bias"); err != nil {
			return err
		}
	}
	shape := c.NewInts(4)
	shape[0], shape[1], shape[2], shape[3] = x.Shape[0], w.Shape[0], oh, ow
	c.ComputeDType = x.DType
	return contiguousOut(c, 0, x.DType, shape)
}

// Conv2dBackwardInput is the meta function of the gradient of a
// convolution with respect to its input (a transposed convolution): the
// output is [N, C, H, W] with H, W given, and grad_output must have the
// shape the forward convolution of such an input has.
func Conv2dBackwardInput(c *kernel.Call) error {
	if len(c.In) != 2 {
		return kernel.Errorf(kernel.ErrArgument, "convolution_backward_input takes 2 tensors, got %d", len(c.In))
	}
	p, err := ConvParamsOf(c)
	if err != nil {
		return err
	}
	g, w := &c.In[0], &c.In[1]
	if err := convDType(g, w, "weight"); err != nil {
		return err
	}
	if len(g.Shape) != 4 || len(w.Shape) != 4 {
		return kernel.Errorf(kernel.ErrShape, "Expected 4-dimensional grad_output for 4-dimensional weight %s, but got %d-dimensional grad_output of size %s instead",
			kernel.ShapeString(w.Shape), len(g.Shape), kernel.ShapeString(g.Shape))
	}
	in := []int{g.Shape[0], w.Shape[1] * p.Groups, p.X, p.Y}
	oh, ow, err := checkConvShapes(in, w.Shape, p)
	if err != nil {
		return err
	}
	if g.Shape[1] != w.Shape[0] || g.Shape[2] != oh || g.Shape[3] != ow {
		return kernel.Errorf(kernel.ErrShape, "Expected grad_output of size %s for an input of size %s and a weight of size %s, but got %s",
			kernel.ShapeString([]int{g.Shape[0], w.Shape[0], oh, ow}), kernel.ShapeString(in), kernel.ShapeString(w.Shape), kernel.ShapeString(g.Shape))
	}
	shape := c.NewInts(4)
	copy(shape, in)
	c.ComputeDType = g.DType
	return contiguousOut(c, 0, g.DType, shape)
}

// Conv2dBackwardWeight is the meta function of the gradient of a
// convolution with respect to its weight: [O, C/groups, kH, kW] with O
// from grad_output and kH, kW given.
func Conv2dBackwardWeight(c *kernel.Call) error {
	if len(c.In) != 2 {
		return kernel.Errorf(kernel.ErrArgument, "convolution_backward_weight takes 2 tensors, got %d", len(c.In))
	}
	p, err := ConvParamsOf(c)
	if err != nil {
		return err
	}
	g, x := &c.In[0], &c.In[1]
	if err := convDType(x, g, "grad_output"); err != nil {
		return err
	}
	if len(g.Shape) != 4 || len(x.Shape) != 4 {
		return kernel.Errorf(kernel.ErrShape, "Expected 4-dimensional input and grad_output, but got input of size %s and grad_output of size %s",
			kernel.ShapeString(x.Shape), kernel.ShapeString(g.Shape))
	}
	if x.Shape[1]%p.Groups != 0 {
		return kernel.Errorf(kernel.ErrShape, "Given groups=%d, expected input%s to have a number of channels divisible by %d",
			p.Groups, kernel.ShapeString(x.Shape), p.Groups)
	}
	if p.X < 1 || p.Y < 1 {
		return kernel.Errorf(kernel.ErrShape, "convolution_backward_weight: kernel size [%d, %d] must be positive", p.X, p.Y)
	}
	ws := []int{g.Shape[1], x.Shape[1] / p.Groups, p.X, p.Y}
	oh, ow, err := checkConvShapes(x.Shape, ws, p)
	if err != nil {
		return err
	}
	if g.Shape[0] != x.Shape[0] || g.Shape[2] != oh || g.Shape[3] != ow {
		return kernel.Errorf(kernel.ErrShape, "Expected grad_output of size %s for an input of size %s and a weight of size %s, but got %s",
			kernel.ShapeString([]int{x.Shape[0], ws[0], oh, ow}), kernel.ShapeString(x.Shape), kernel.ShapeString(ws), kernel.ShapeString(g.Shape))
	}
	shape := c.NewInts(4)
	copy(shape, ws)
	c.ComputeDType = x.DType
	return contiguousOut(c, 0, x.DType, shape)
}
