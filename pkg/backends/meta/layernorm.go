package meta

import (
	"slices"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.RegisterMeta(kernel.OpLayerNorm, LayerNorm)
	kernel.RegisterMeta(kernel.OpLayerNormBackward, LayerNormBackward)
	kernel.RegisterMeta(kernel.OpGroupNorm, GroupNorm)
	kernel.RegisterMeta(kernel.OpGroupNormBackward, GroupNormBackward)
}

// LayerNormGeometry is the input of a layer norm seen as [Rows, D], D the
// product of the Ints[0] trailing dims that are normalised.
type LayerNormGeometry struct {
	Rows, D int
	Axis    int // the first normalised dim
}

// layerNormCheck checks the input x (float32 or float64, at least
// c.Ints[0] >= 1 dims) and that each per-element operand has the
// normalised shape and x's dtype.
func layerNormCheck(name string, c *kernel.Call, x *kernel.Operand, perElement []kernel.Operand) (LayerNormGeometry, error) {
	var g LayerNormGeometry
	if len(c.Ints) != 1 || c.Ints[0] < 1 || c.Ints[0] > len(x.Shape) {
		return g, kernel.Errorf(kernel.ErrArgument, "%s: expected the number of normalised dims in [1, %d], got %v",
			name, len(x.Shape), c.Ints)
	}
	if x.DType != dtype.Float32 && x.DType != dtype.Float64 {
		return g, kernel.Errorf(kernel.ErrDType, "\"%s\" not implemented for '%s'", name, kernel.PyName(x.DType))
	}
	g.Axis = len(x.Shape) - c.Ints[0]
	g.Rows, g.D = kernel.Numel(x.Shape[:g.Axis]), kernel.Numel(x.Shape[g.Axis:])
	for i := range perElement {
		p := &perElement[i]
		if !slices.Equal(p.Shape, x.Shape[g.Axis:]) || p.DType != x.DType {
			return g, kernel.Errorf(kernel.ErrShape, "%s: expected a %s tensor of shape %s, got %s of shape %s", name,
				kernel.PyName(x.DType), kernel.ShapeString(x.Shape[g.Axis:]), kernel.PyName(p.DType), kernel.ShapeString(p.Shape))
		}
	}
	return g, nil
}

// statShape is x's shape with the normalised dims 1: the shape of the
// mean and rstd, as PyTorch's native_layer_norm gives them.
func statShape(x []int, axis int) []int {
	s := slices.Clone(x)
	for i := axis; i < len(s); i++ {
		s[i] = 1
	}
	return s
}

// LayerNorm is the meta function of native_layer_norm: In[0] the input,
// In[1] the weight and In[2] the bias of the normalised shape (its
// Ints[0] trailing dims). Out[0] is the output, of the input's shape and
// dtype, Out[1] the mean and Out[2] the rstd of each row.
func LayerNorm(c *kernel.Call) error {
	const name = "native_layer_norm"
	if len(c.In) != 3 {
		return kernel.Errorf(kernel.ErrArgument, "%s: expected 3 inputs, got %d", name, len(c.In))
	}
	x := &c.In[0]
	g, err := layerNormCheck(name, c, x, c.In[1:])
	if err != nil {
		return err
	}
	c.SetOutputs(3)
	if err := contiguousOut(c, 0, x.DType, slices.Clone(x.Shape)); err != nil {
		return err
	}
	for i := 1; i < 3; i++ {
		if err := contiguousOut(c, i, x.DType, statShape(x.Shape, g.Axis)); err != nil {
			return err
		}
	}
	return nil
}

// LayerNormBackward is the meta function of native_layer_norm_backward:
// In[0] the output's gradient, In[1] the input, In[2] the mean and In[3]
// the rstd of the forward, In[4] the weight. Out[0] is the input's
// gradient, Out[1] the weight's and Out[2] the bias's.
func LayerNormBackward(c *kernel.Call) error {
	const name = "native_layer_norm_backward"
	if len(c.In) != 5 {
		return kernel.Errorf(kernel.ErrArgument, "%s: expected 5 inputs, got %d", name, len(c.In))
	}
	x := &c.In[1]
	g, err := layerNormCheck(name, c, x, c.In[4:])
	if err != nil {
		return err
	}
	if gr := &c.In[0]; !slices.Equal(gr.Shape, x.Shape) || gr.DType != x.DType {
		return kernel.Errorf(kernel.ErrShape, "%s: expected a %s gradient of shape %s, got %s of shape %s", name,
			kernel.PyName(x.DType), kernel.ShapeString(x.Shape), kernel.PyName(gr.DType), kernel.ShapeString(gr.Shape))
	}
	st := statShape(x.Shape, g.Axis)
	for i := 2; i < 4; i++ {
		if s := &c.In[i]; kernel.Numel(s.Shape) != g.Rows || s.DType != x.DType {
			return kernel.Errorf(kernel.ErrShape, "%s: expected a %s statistic of shape %s, got %s of shape %s", name,
				kernel.PyName(x.DType), kernel.ShapeString(st), kernel.PyName(s.DType), kernel.ShapeString(s.Shape))
		}
	}
	c.SetOutputs(3)
	if err := contiguousOut(c, 0, x.DType, slices.Clone(x.Shape)); err != nil {
		return err
	}
	for i := 1; i < 3; i++ {
		if err := contiguousOut(c, i, x.DType, slices.Clone(c.In[4].Shape)); err != nil {
			return err
		}
	}
	return nil
}

// groupNormCheck checks the input x ([N, C, ...], float32 or float64)
// against c.Ints[0] groups and that each per-channel operand has C
// elements of x's dtype; it gives the geometry as a layer norm's: Rows
// N*groups of D = C/groups*S elements.
func groupNormCheck(name string, c *kernel.Call, x *kernel.Operand, perChannel []kernel.Operand) (LayerNormGeometry, error) {
	var g LayerNormGeometry
	if len(x.Shape) < 2 {
		return g, kernel.Errorf(kernel.ErrShape, "%s: expected an input of at least 2 dims, got %dD input", name, len(x.Shape))
	}
	if x.DType != dtype.Float32 && x.DType != dtype.Float64 {
		return g, kernel.Errorf(kernel.ErrDType, "\"%s\" not implemented for '%s'", name, kernel.PyName(x.DType))
	}
	ch := x.Shape[1]
	if len(c.Ints) != 1 || c.Ints[0] < 1 || ch%c.Ints[0] != 0 {
		return g, kernel.Errorf(kernel.ErrArgument, "%s: expected a number of groups dividing the %d channels, got %v", name, ch, c.Ints)
	}
	for i := range perChannel {
		p := &perChannel[i]
		if !slices.Equal(p.Shape, []int{ch}) || p.DType != x.DType {
			return g, kernel.Errorf(kernel.ErrShape, "%s: expected a %s tensor of shape [%d], got %s of shape %s", name,
				kernel.PyName(x.DType), ch, kernel.PyName(p.DType), kernel.ShapeString(p.Shape))
		}
	}
	g.Axis = 1
	g.Rows = x.Shape[0] * c.Ints[0]
	g.D = kernel.Numel(x.Shape[1:]) / c.Ints[0]
	return g, nil
}

// GroupNorm is the meta function of native_group_norm: In[0] the input
// [N, C, ...], In[1] the weight and In[2] the bias [C], Ints[0] the
// groups. Out[0] is the output, of the input's shape and dtype, Out[1]
// the mean and Out[2] the rstd of each group of each sample [N, groups].
func GroupNorm(c *kernel.Call) error {
	const name = "native_group_norm"
	if len(c.In) != 3 {
		return kernel.Errorf(kernel.ErrArgument, "%s: expected 3 inputs, got %d", name, len(c.In))
	}
	x := &c.In[0]
	if _, err := groupNormCheck(name, c, x, c.In[1:]); err != nil {
		return err
	}
	c.SetOutputs(3)
	if err := contiguousOut(c, 0, x.DType, slices.Clone(x.Shape)); err != nil {
		return err
	}
	for i := 1; i < 3; i++ {
		if err := contiguousOut(c, i, x.DType, []int{x.Shape[0], c.Ints[0]}); err != nil {
			return err
		}
	}
	return nil
}

// GroupNormBackward is the meta function of native_group_norm_backward:
// In[0] the output's gradient, In[1] the input, In[2] the mean and In[3]
// the rstd of the forward [N, groups], In[4] the weight [C]. Out[0] is
// the input's gradient, Out[1] the weight's and Out[2] the bias's.
func GroupNormBackward(c *kernel.Call) error {
	const name = "native_group_norm_backward"
	if len(c.In) != 5 {
		return kernel.Errorf(kernel.ErrArgument, "%s: expected 5 inputs, got %d", name, len(c.In))
	}
	x := &c.In[1]
	g, err := groupNormCheck(name, c, x, c.In[4:])
	if err != nil {
		return err
	}
	if gr := &c.In[0]; !slices.Equal(gr.Shape, x.Shape) || gr.DType != x.DType {
		return kernel.Errorf(kernel.ErrShape, "%s: expected a %s gradient of shape %s, got %s of shape %s", name,
			kernel.PyName(x.DType), kernel.ShapeString(x.Shape), kernel.PyName(gr.DType), kernel.ShapeString(gr.Shape))
	}
	for i := 2; i < 4; i++ {
		if s := &c.In[i]; kernel.Numel(s.Shape) != g.Rows || s.DType != x.DType {
			return kernel.Errorf(kernel.ErrShape, "%s: expected a %s statistic of %d elements, got %s of shape %s", name,
				kernel.PyName(x.DType), g.Rows, kernel.PyName(s.DType), kernel.ShapeString(s.Shape))
		}
	}
	c.SetOutputs(3)
	if err := contiguousOut(c, 0, x.DType, slices.Clone(x.Shape)); err != nil {
		return err
	}
	for i := 1; i < 3; i++ {
		if err := contiguousOut(c, i, x.DType, []int{x.Shape[1]}); err != nil {
			return err
		}
	}
	return nil
}
