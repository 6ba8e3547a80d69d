package meta

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.RegisterMeta(kernel.OpKthvalue, SelectAlongDim)
	kernel.RegisterMeta(kernel.OpMode, SelectAlongDim)
}

// SelectAlongDim is the meta function of kthvalue (Ints[0] = k) and mode,
// which pick one element of each slice along c.Dim: values of the input's
// dtype and int64 indices, the input's shape without c.Dim (kept as size 1
// with KeepDim; a 0-dim input gives 0-dim results). The errors are
// PyTorch 1.13's: a slice of no elements, k out of [1, size], and bool
// for kthvalue ("kthvalue_cpu" has no bool kernel; mode has).
func SelectAlongDim(c *kernel.Call) error {
	in := &c.In[0]
	nd := len(in.Shape)
	if c.Dim < 0 || (nd > 0 && c.Dim >= nd) || (nd == 0 && c.Dim > 0) {
		return kernel.Errorf(kernel.ErrIndex, "Dimension out of range (expected to be in range of [%d, %d], but got %d)",
			-max(nd, 1), max(nd, 1)-1, c.Dim)
	}
	n := 1
	if nd > 0 {
		n = in.Shape[c.Dim]
	}
	if n == 0 {
		return kernel.Errorf(kernel.ErrIndex, "%s(): Expected reduction dim %d to have non-zero size.", c.Op, c.Dim)
	}
	if c.Op == kernel.OpKthvalue {
		if in.DType == dtype.Bool {
			return kernel.Errorf(kernel.ErrDType, "\"kthvalue_cpu\" not implemented for 'Bool'")
		}
		if len(c.Ints) < 1 {
			return kernel.Errorf(kernel.ErrArgument, "kthvalue(): no k given")
		}
		if k := c.Ints[0]; k < 1 || k > n {
			return kernel.Errorf(kernel.ErrArgument, "kthvalue(): selected number k out of range for dimension %d", c.Dim)
		}
	}
	shape := c.NewInts(nd)[:0]
	for d, s := range in.Shape {
		switch {
		case d != c.Dim:
			shape = append(shape, s)
		case c.KeepDim:
			shape = append(shape, 1)
		}
	}
	c.SetOutputs(2)
	if err := contiguousOut(c, 0, in.DType, shape); err != nil {
		return err
	}
	return contiguousOut(c, 1, dtype.Int64, shape)
}
