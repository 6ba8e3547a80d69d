package meta

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.RegisterMeta(kernel.OpMm, Matmul)
	kernel.RegisterMeta(kernel.OpBmm, Matmul)
	kernel.RegisterMeta(kernel.OpAddmm, Matmul)
	kernel.RegisterMeta(kernel.OpBaddbmm, Matmul)
	kernel.RegisterMeta(kernel.OpDot, Dot)
}

// MatmulOperands returns the two matrix (or batch) operands of a product
// call: In[0] and In[1] for mm and bmm, In[1] and In[2] for addmm and
// baddbmm, whose In[0] is the added input.
func MatmulOperands(c *kernel.Call) (a, b *kernel.Operand) {
	if c.Op == kernel.OpAddmm || c.Op == kernel.OpBaddbmm {
		return &c.In[1], &c.In[2]
	}
	return &c.In[0], &c.In[1]
}

// Matmul is the meta function of mm, bmm, addmm and baddbmm: the product
// of [n, k] and [k, m] matrices (with a leading batch dim for the b forms)
// in their common dtype.
func Matmul(c *kernel.Call) error {
	a, b := MatmulOperands(c)
	batched := c.Op == kernel.OpBmm || c.Op == kernel.OpBaddbmm
	want := 2
	if batched {
		want = 3
	}
	for i, o := range []*kernel.Operand{a, b} {
		if len(o.Shape) == want {
			continue
		}
		if batched {
			return kernel.Errorf(kernel.ErrShape, "%s must be a 3D tensor", operandName(true, i+1))
		}
		return kernel.Errorf(kernel.ErrShape, "%s must be a matrix", operandName(false, i+1))
	}
	if a.DType != b.DType {
		return kernel.Errorf(kernel.ErrDType, "expected scalar type %s but found %s", dtypeTitle(a.DType), dtypeTitle(b.DType))
	}
	if a.DType == dtype.Bool {
		return kernel.Errorf(kernel.ErrDType, "\"addmm_impl_cpu_\" not implemented for 'Bool'")
	}
	var shape []int
	if batched {
		if b.Shape[0] != a.Shape[0] || b.Shape[1] != a.Shape[2] {
			return kernel.Errorf(kernel.ErrShape, "Expected size for first two dimensions of batch2 tensor to be: "+
				"[%d, %d] but got: [%d, %d].", a.Shape[0], a.Shape[2], b.Shape[0], b.Shape[1])
		}
		shape = c.NewInts(3)
		shape[0], shape[1], shape[2] = a.Shape[0], a.Shape[1], b.Shape[2]
	} else {
		if a.Shape[1] != b.Shape[0] {
			return kernel.Errorf(kernel.ErrShape, "mat1 and mat2 shapes cannot be multiplied (%dx%d and %dx%d)",
				a.Shape[0], a.Shape[1], b.Shape[0], b.Shape[1])
		}
		shape = c.NewInts(2)
		shape[0], shape[1] = a.Shape[0], b.Shape[1]
	}
	if c.Op == kernel.OpAddmm || c.Op == kernel.OpBaddbmm {
		in := &c.In[0]
		if in.DType != a.DType {
			return kernel.Errorf(kernel.ErrDType, "expected scalar type %s but found %s", dtypeTitle(a.DType), dtypeTitle(in.DType))
		}
		if err := checkExpandable(in.Shape, shape); err != nil {
			return err
		}
	}
	c.ComputeDType = a.DType
	return contiguousOut(c, 0, a.DType, shape)
}

func operandName(batched bool, i int) string {
	if batched {
		return [...]string{"", "batch1", "batch2"}[i]
	}
	return [...]string{"", "mat1", "mat2"}[i]
}

// checkExpandable checks that shape from expands to shape to, with PyTorch's message.
func checkExpandable(from, to []int) error {
	if len(from) > len(to) {
		return kernel.Errorf(kernel.ErrShape, "the number of sizes provided (%d) must be greater or equal to the "+
			"number of dimensions in the tensor (%d)", len(to), len(from))
	}
	for i := range from {
		d := len(to) - len(from) + i
		if from[i] != 1 && from[i] != to[d] {
			return kernel.Errorf(kernel.ErrShape, "The expanded size of the tensor (%d) must match the existing size (%d) "+
				"at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s",
				to[d], from[i], d, kernel.ShapeString(to), kernel.ShapeString(from))
		}
	}
	return nil
}

// Dot is the meta function of dot: two 1-D tensors of one size and dtype.
func Dot(c *kernel.Call) error {
	a, b := &c.In[0], &c.In[1]
	if len(a.Shape) != 1 || len(b.Shape) != 1 {
		return kernel.Errorf(kernel.ErrShape, "1D tensors expected, but got %dD and %dD tensors", len(a.Shape), len(b.Shape))
	}
	if a.Shape[0] != b.Shape[0] {
		return kernel.Errorf(kernel.ErrShape, "inconsistent tensor size, expected tensor [%d] and src [%d] to have the "+
			"same number of elements, but got %d and %d elements respectively", a.Shape[0], b.Shape[0], a.Shape[0], b.Shape[0])
	}
	if a.DType != b.DType {
		return kernel.Errorf(kernel.ErrDType, "dot : expected both vectors to have same dtype, but found %s and %s",
			dtypeTitle(a.DType), dtypeTitle(b.DType))
	}
	if a.DType == dtype.Bool {
		return kernel.Errorf(kernel.ErrDType, "\"dot\" not implemented for 'Bool'")
	}
	c.ComputeDType = a.DType
	return contiguousOut(c, 0, a.DType, nil)
}
