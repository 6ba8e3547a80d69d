package meta

import (
	"slices"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.RegisterMeta(kernel.OpBatchNorm, BatchNorm)
	kernel.RegisterMeta(kernel.OpBatchNormBackward, BatchNormBackward)
}

// BatchNormGeometry is the input of a batch norm seen as [N, C, S], S the
// product of its dims after the channels.
type BatchNormGeometry struct {
	N, C, S int
}

// batchNormCheck checks the input x (at least 2 dims, float32 or float64)
// and that each per-channel operand has C elements of x's dtype.
func batchNormCheck(name string, x *kernel.Operand, perChannel []kernel.Operand) (BatchNormGeometry, error) {
	var g BatchNormGeometry
	if len(x.Shape) < 2 {
		return g, kernel.Errorf(kernel.ErrShape, "%s: expected an input of at least 2 dims, got %dD input", name, len(x.Shape))
	}
	if x.DType != dtype.Float32 && x.DType != dtype.Float64 {
		return g, kernel.Errorf(kernel.ErrDType, "\"%s\" not implemented for '%s'", name, kernel.PyName(x.DType))
	}
	g.N, g.C, g.S = x.Shape[0], x.Shape[1], 1
	for _, d := range x.Shape[2:] {
		g.S *= d
	}
	for i := range perChannel {
		p := &perChannel[i]
		if p.Numel() != g.C || p.DType != x.DType {
			return g, kernel.Errorf(kernel.ErrShape, "%s: expected a %s per-channel tensor of %d elements, got %s of shape %s",
				name, kernel.PyName(x.DType), g.C, kernel.PyName(p.DType), kernel.ShapeString(p.Shape))
		}
	}
	return g, nil
}

// BatchNorm is the meta function of native_batch_norm: In[0] the input
// [N, C, ...], In[1] weight and In[2] bias of C elements, and when not
// training (Mode 0) In[3] and In[4] the running mean and var. Out[0] is
// the output, of the input's shape and dtype; training adds Out[1] the
// mean, Out[2] the invstd and Out[3] the biased var of each channel.
func BatchNorm(c *kernel.Call) error {
	const name = "native_batch_norm"
	training := c.Mode == 1
	want := 5
	if training {
		want = 3
	}
	if len(c.In) != want {
		return kernel.Errorf(kernel.ErrArgument, "%s: expected %d inputs, got %d", name, want, len(c.In))
	}
	x := &c.In[0]
	g, err := batchNormCheck(name, x, c.In[1:])
	if err != nil {
		return err
	}
	if training {
		if g.N*g.S == 1 {
			return kernel.Errorf(kernel.ErrArgument, "Expected more than 1 value per channel when training, got input size %s",
				kernel.ShapeString(x.Shape))
		}
		c.SetOutputs(4)
	} else {
		c.SetOutputs(1)
	}
	if err := contiguousOut(c, 0, x.DType, slices.Clone(x.Shape)); err != nil {
		return err
	}
	for i := 1; i < len(c.Out); i++ {
		if err := contiguousOut(c, i, x.DType, []int{g.C}); err != nil {
			return err
		}
	}
	return nil
}

// BatchNormBackward is the meta function of native_batch_norm_backward:
// In[0] the output's gradient, In[1] the input, In[2] the weight, In[3]
// the mean and In[4] the invstd used by the forward (C elements each).
// Out[0] is the input's gradient, Out[1] the weight's and Out[2] the bias's.
func BatchNormBackward(c *kernel.Call) error {
	const name = "native_batch_norm_backward"
	if len(c.In) != 5 {
		return kernel.Errorf(kernel.ErrArgument, "%s: expected 5 inputs, got %d", name, len(c.In))
	}
	x := &c.In[1]
	g, err := batchNormCheck(name, x, c.In[2:])
	if err != nil {
		return err
	}
	if gr := &c.In[0]; !slices.Equal(gr.Shape, x.Shape) || gr.DType != x.DType {
		return kernel.Errorf(kernel.ErrShape, "%s: expected a %s gradient of shape %s, got %s of shape %s", name,
			kernel.PyName(x.DType), kernel.ShapeString(x.Shape), kernel.PyName(gr.DType), kernel.ShapeString(gr.Shape))
	}
	c.SetOutputs(3)
	if err := contiguousOut(c, 0, x.DType, slices.Clone(x.Shape)); err != nil {
		return err
	}
	for i := 1; i < 3; i++ {
		if err := contiguousOut(c, i, x.DType, []int{g.C}); err != nil {
			return err
		}
	}
	return nil
}
