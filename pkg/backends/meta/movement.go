package meta

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.RegisterMeta(kernel.OpCat, Cat)
	kernel.RegisterMeta(kernel.OpFlip, Flip)
	kernel.RegisterMeta(kernel.OpIndexSelect, IndexSelect)
	kernel.RegisterMeta(kernel.OpGather, Gather)
	for _, op := range []kernel.OpID{kernel.OpScatter, kernel.OpScatterAdd, kernel.OpScatterReduce} {
		kernel.RegisterMeta(op, Scatter)
	}
	kernel.RegisterMeta(kernel.OpIndexAdd, IndexAdd)
	kernel.RegisterMeta(kernel.OpMaskedSelect, MaskedSelect)
	kernel.RegisterMeta(kernel.OpNonzero, Nonzero)
	kernel.RegisterMeta(kernel.OpUnique, Unique)
	kernel.RegisterMeta(kernel.OpSort, Sort)
	kernel.RegisterMeta(kernel.OpTopk, Sort)
	kernel.RegisterMeta(kernel.OpSearchsorted, Searchsorted)
}

// Cat is the meta function of cat: inputs of equal rank (1-D empty inputs
// are skipped, as PyTorch allows) matching except in c.Dim, promoted to a
// common dtype.
func Cat(c *kernel.Call) error {
	if len(c.In) == 0 {
		return kernel.Errorf(kernel.ErrArgument, "torch.cat(): expected a non-empty list of Tensors")
	}
	var ref *kernel.Operand
	d := c.In[0].DType
	for i := range c.In {
		in := &c.In[i]
		if i > 0 {
			d = dtype.Promote(d, in.DType)
		}
		if skippedInCat(in) {
			continue
		}
		if ref == nil {
			ref = in
			continue
		}
		if len(in.Shape) != len(ref.Shape) {
			return kernel.Errorf(kernel.ErrShape, "Tensors must have same number of dimensions: got %d and %d",
				len(ref.Shape), len(in.Shape))
		}
		for k := range in.Shape {
			if k != c.Dim && in.Shape[k] != ref.Shape[k] {
				return kernel.Errorf(kernel.ErrShape, "Sizes of tensors must match except in dimension %d. Expected size "+
					"%d but got size %d for tensor number %d in the list.", c.Dim, ref.Shape[k], in.Shape[k], i)
			}
		}
	}
	if ref == nil { // every input is an empty 1-D tensor
		return contiguousOut(c, 0, d, []int{0})
	}
	if c.Dim >= len(ref.Shape) {
		return kernel.Errorf(kernel.ErrIndex, "Dimension out of range (expected to be in range of [%d, %d], but got %d)",
			-len(ref.Shape), len(ref.Shape)-1, c.Dim)
	}
	shape := append(c.NewInts(len(ref.Shape))[:0], ref.Shape...)
	shape[c.Dim] = 0
	for i := range c.In {
		if !skippedInCat(&c.In[i]) {
			n := c.In[i].Shape[c.Dim]
			if n > kernel.MaxNbytes-shape[c.Dim] { // both are at most MaxNbytes: no overflow
				return kernel.Errorf(kernel.ErrShape, "Storage size calculation overflowed: the sizes in dimension %d add up to more than %d",
					c.Dim, kernel.MaxNbytes)
			}
			shape[c.Dim] += n
		}
	}
	c.ComputeDType = d
	return contiguousOut(c, 0, d, shape)
}

// skippedInCat reports whether cat ignores an input: a 1-D tensor with no
// elements (PyTorch's legacy rule).
func skippedInCat(o *kernel.Operand) bool { return len(o.Shape) == 1 && o.Shape[0] == 0 }

// Flip is the meta function of flip: the input's shape and dtype.
func Flip(c *kernel.Call) error {
	in := &c.In[0]
	return contiguousOut(c, 0, in.DType, in.Shape)
}

// checkIndexDType checks that an index tensor holds integers.
func checkIndexDType(op string, d dtype.DType, int32OK bool) error {
	if d == dtype.Int64 || int32OK && d == dtype.Int32 {
		return nil
	}
	if int32OK {
		return kernel.Errorf(kernel.ErrDType, "%s(): Expected dtype int32 or int64 for index", op)
	}
	return kernel.Errorf(kernel.ErrDType, "%s(): Expected dtype int64 for index", op)
}

// IndexSelect is the meta function of index_select: In[1] is a 1-D (or
// 0-dim) int64 or int32 index; the output has its length in c.Dim.
func IndexSelect(c *kernel.Call) error {
	in, idx := &c.In[0], &c.In[1]
	if len(idx.Shape) > 1 {
		return kernel.Errorf(kernel.ErrIndex, "index_select(): Index is supposed to be a vector")
	}
	if err := checkIndexDType("index_select", idx.DType, true); err != nil {
		return err
	}
	shape := append(c.NewInts(max(len(in.Shape), 1))[:0], in.Shape...)
	if len(shape) > 0 {
		shape[c.Dim] = idx.Numel()
	}
	return contiguousOut(c, 0, in.DType, shape)
}

// Gather is the meta function of gather: the output has the index's shape.
func Gather(c *kernel.Call) error {
	in, idx := &c.In[0], &c.In[1]
	if err := checkIndexDType("gather", idx.DType, false); err != nil {
		return err
	}
	if err := checkScatterShapes(in, idx, nil, c.Dim); err != nil {
		return err
	}
	return contiguousOut(c, 0, in.DType, idx.Shape)
}

// checkScatterShapes checks gather's and scatter's rule: index has self's
// rank and is no larger than self (except in dim) and src.
func checkScatterShapes(self, idx, src *kernel.Operand, dim int) error {
	if len(idx.Shape) != len(self.Shape) && !(len(idx.Shape) <= 1 && len(self.Shape) <= 1) {
		return kernel.Errorf(kernel.ErrShape, "Index tensor must have the same number of dimensions as input tensor")
	}
	for d := range idx.Shape {
		if d < len(self.Shape) && d != dim && idx.Shape[d] > self.Shape[d] {
			return kernel.Errorf(kernel.ErrShape, "Size does not match at dimension %d expected index %s to be smaller "+
				"than self %s apart from dimension %d", d, kernel.ShapeString(idx.Shape), kernel.ShapeString(self.Shape), dim)
		}
		if src != nil && d < len(src.Shape) && idx.Shape[d] > src.Shape[d] {
			return kernel.Errorf(kernel.ErrShape, "Size does not match at dimension %d expected index %s to be smaller "+
				"than src %s", d, kernel.ShapeString(idx.Shape), kernel.ShapeString(src.Shape))
		}
	}
	return nil
}

// Scatter is the meta function of scatter, scatter_add and scatter_reduce:
// In[0] self, In[1] index, In[2] src (absent when Scalars[0] is the value);
// the output is a copy of self with the scattered values.
func Scatter(c *kernel.Call) error {
	self, idx := &c.In[0], &c.In[1]
	if err := checkIndexDType(c.Op.String(), idx.DType, false); err != nil {
		return err
	}
	var src *kernel.Operand
	if len(c.In) > 2 {
		src = &c.In[2]
		if src.DType != self.DType {
			return kernel.Errorf(kernel.ErrDType, "%s(): Expected self.dtype to be equal to src.dtype", c.Op)
		}
	}
	if err := checkScatterShapes(self, idx, src, c.Dim); err != nil {
		return err
	}
	return contiguousOut(c, 0, self.DType, self.Shape)
}

// IndexAdd is the meta function of index_add: In[0] self, In[1] a 1-D
// index, In[2] source, whose size in Dim is the index's length.
func IndexAdd(c *kernel.Call) error {
	self, idx, src := &c.In[0], &c.In[1], &c.In[2]
	if len(idx.Shape) > 1 {
		return kernel.Errorf(kernel.ErrIndex, "index_add_(): Index is supposed to be a vector")
	}
	if err := checkIndexDType("index_add_", idx.DType, true); err != nil {
		return err
	}
	if src.DType != self.DType {
		return kernel.Errorf(kernel.ErrDType, "index_add_(): self (%s) and source (%s) must have the same scalar type",
			dtypeTitle(self.DType), dtypeTitle(src.DType))
	}
	ok := len(src.Shape) == len(self.Shape) || len(self.Shape) == 0 && len(src.Shape) <= 1
	for d := range src.Shape {
		if !ok {
			break
		}
		want := 1
		if d < len(self.Shape) {
			want = self.Shape[d]
		}
		if d == c.Dim {
			want = idx.Numel()
		}
		ok = src.Shape[d] == want
	}
	if !ok {
		return kernel.Errorf(kernel.ErrShape, "index_add_(): source %s must have the shape of self %s except in "+
			"dimension %d, of the index's length %d", kernel.ShapeString(src.Shape), kernel.ShapeString(self.Shape), c.Dim, idx.Numel())
	}
	return contiguousOut(c, 0, self.DType, self.Shape)
}

// MaskedSelect is the meta function of masked_select: a 1-D output whose
// length is the number of true elements of the broadcast mask.
func MaskedSelect(c *kernel.Call) error {
	in, mask := &c.In[0], &c.In[1]
	if mask.DType != dtype.Bool {
		return kernel.Errorf(kernel.ErrDType, "masked_select: expected BoolTensor for mask")
	}
	if _, err := kernel.BroadcastShapes(in.Shape, mask.Shape); err != nil {
		return err
	}
	c.Dynamic = true
	c.Out[0].DType = in.DType
	return nil
}

// Nonzero is the meta function of nonzero: int64 [count, ndim].
func Nonzero(c *kernel.Call) error {
	c.Dynamic = true
	c.Out[0].DType = dtype.Int64
	return nil
}

// Unique is the meta function of unique: the sorted distinct values, and
// with Mode bits kernel.UniqueInverse and kernel.UniqueCounts the int64 inverse indices
// (the input's shape) and counts.
func Unique(c *kernel.Call) error {
	c.Dynamic = true
	c.SetOutputs(3)
	c.Out[0].DType = c.In[0].DType
	c.Out[1].DType, c.Out[2].DType = dtype.Int64, dtype.Int64
	return nil
}

// Sort is the meta function of sort and topk: values and int64 indices,
// the input's shape (with k in c.Dim for topk).
func Sort(c *kernel.Call) error {
	in := &c.In[0]
	if in.DType == dtype.Bool && c.Op == kernel.OpTopk {
		return kernel.Errorf(kernel.ErrDType, "\"topk_cpu\" not implemented for 'Bool'")
	}
	shape := append(c.NewInts(len(in.Shape))[:0], in.Shape...)
	if c.Op == kernel.OpTopk {
		n := 1
		if len(in.Shape) > 0 {
			n = in.Shape[c.Dim]
		}
		k := c.Ints[0]
		if k < 0 || k > n {
			return kernel.Errorf(kernel.ErrArgument, "selected index k out of range")
		}
		if len(shape) > 0 {
			shape[c.Dim] = k
		}
	}
	c.SetOutputs(2)
	if err := contiguousOut(c, 0, in.DType, shape); err != nil {
		return err
	}
	return contiguousOut(c, 1, dtype.Int64, shape)
}

// Searchsorted is the meta function of searchsorted: In[0] the sorted
// sequence (1-D, or with the leading dims of the values), In[1] the values;
// int64 (or int32 with DType) positions of the values' shape.
func Searchsorted(c *kernel.Call) error {
	seq, v := &c.In[0], &c.In[1]
	if len(seq.Shape) == 0 {
		return kernel.Errorf(kernel.ErrShape, "torch.searchsorted(): boundaries tensor should be 1 dimension or the "+
			"first N-1 dimensions of boundaries tensor and input value tensor must match, but we got boundaries "+
			"tensor %s and input value tensor %s", kernel.ShapeString(seq.Shape), kernel.ShapeString(v.Shape))
	}
	if len(seq.Shape) > 1 {
		ok := len(v.Shape) == len(seq.Shape)
		for d := 0; ok && d < len(seq.Shape)-1; d++ {
			ok = seq.Shape[d] == v.Shape[d]
		}
		if !ok {
			return kernel.Errorf(kernel.ErrShape, "torch.searchsorted(): boundaries tensor should be 1 dimension or "+
				"the first N-1 dimensions of boundaries tensor and input value tensor must match, but we got "+
				"boundaries tensor %s and input value tensor %s", kernel.ShapeString(seq.Shape), kernel.ShapeString(v.Shape))
		}
	}
	if seq.DType != v.DType {
		return kernel.Errorf(kernel.ErrDType, "torch.searchsorted(): boundaries and input value tensors should have "+
			"same dtype, but got boundaries tensor type %s and input value tensor type %s", dtypeTitle(seq.DType), dtypeTitle(v.DType))
	}
	out := dtype.Int64
	if c.HasDType {
		out = c.DType
	}
	return contiguousOut(c, 0, out, v.Shape)
}
