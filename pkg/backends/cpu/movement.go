package cpu

import (
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.Register(kernel.OpCat, device.CPU, catKernel)
	kernel.Register(kernel.OpFlip, device.CPU, flipKernel)
	kernel.Register(kernel.OpMaskedSelect, device.CPU, maskedSelectKernel)
	kernel.Register(kernel.OpNonzero, device.CPU, nonzeroKernel)
}

// catKernel copies each input into its slice of the output.
func catKernel(c *kernel.Call) error {
	o := &c.Out[0]
	at := 0
	for i := range c.In {
		in := &c.In[i]
		if len(in.Shape) == 1 && in.Shape[0] == 0 && len(o.Shape) != 1 {
			continue // an empty 1-D input, skipped as PyTorch does
		}
		if kernel.Numel(in.Shape) > 0 {
			part := *o
			part.Offset += at * o.Strides[c.Dim]
			part.Shape = in.Shape
			if err := castInto(opnd(&part), o.DType, opnd(in), in.DType, in.Shape); err != nil {
				return err
			}
		}
		if len(in.Shape) > c.Dim {
			at += in.Shape[c.Dim]
		}
	}
	return nil
}

// flipKernel copies the input read backwards along c.Dims: a view with
// negated strides starting at the last element of those dims.
func flipKernel(c *kernel.Call) error {
	in, o := &c.In[0], &c.Out[0]
	v := *in
	v.Strides = append([]int(nil), in.Strides...)
	for _, d := range c.Dims {
		v.Offset += (in.Shape[d] - 1) * in.Strides[d]
		v.Strides[d] = -in.Strides[d]
	}
	return castInto(opnd(o), o.DType, opnd(&v), in.DType, in.Shape)
}

// moveElem copies one element of es bytes.
func moveElem(dst, src unsafe.Pointer, es int) {
	switch es {
	case 1:
		*(*uint8)(dst) = *(*uint8)(src)
	case 2:
		*(*uint16)(dst) = *(*uint16)(src)
	case 4:
		*(*uint32)(dst) = *(*uint32)(src)
	default:
		*(*uint64)(dst) = *(*uint64)(src)
	}
}

// bytesAt is n bytes at p as a slice.
func bytesAt(p unsafe.Pointer, n int) []byte { return unsafe.Slice((*byte)(p), n) }

// walk calls f for every position of shape in row-major order with the
// element offsets of each layout in strides (one stride list per operand).
func walk(shape []int, strides [][]int, f func(pos int, off []int) error) error {
	n := kernel.Numel(shape)
	if n == 0 {
		return nil
	}
	nd := len(shape)
	idx := make([]int, nd)
	off := make([]int, len(strides))
	for pos := range n {
		if err := f(pos, off); err != nil {
			return err
		}
		for d := nd - 1; d >= 0; d-- {
			idx[d]++
			for k := range strides {
				off[k] += strides[k][d]
			}
			if idx[d] < shape[d] {
				break
			}
			for k := range strides {
				off[k] -= idx[d] * strides[k][d]
			}
			idx[d] = 0
		}
	}
	return nil
}

// stridesAlong returns o's strides for a walk over an nd-dimensional
// index: a 0-dim operand reads as one element, and dim (when >= 0) gets
// stride 0, its position coming from the index instead.
func stridesAlong(o *kernel.Operand, nd, dim int) []int {
	st := make([]int, nd)
	if len(o.Strides) == nd {
		copy(st, o.Strides)
	}
	if dim >= 0 && dim < nd {
		st[dim] = 0
	}
	return st
}

// maskedSelectKernel gathers the elements where the broadcast mask is true
// into a new 1-D output.
func maskedSelectKernel(c *kernel.Call) error {
	in, mask := &c.In[0], &c.In[1]
	shape, err := kernel.BroadcastShapes(in.Shape, mask.Shape)
	if err != nil {
		return err
	}
	m := broadcastView(mask, shape)
	v := broadcastView(in, shape)
	es := in.DType.ItemSize()
	count := 0
	mp := m.Data()
	_ = walk(shape, [][]int{m.Strides}, func(_ int, off []int) error {
		if *(*uint8)(unsafe.Add(mp, off[0])) != 0 {
			count++
		}
		return nil
	})
	o := &c.Out[0]
	o.Shape, o.Strides = c.NewInts(1), c.NewInts(1)
	o.Shape[0], o.Strides[0] = count, 1
	if err := bindNew(o, count*es); err != nil {
		return err
	}
	vp, op := v.Data(), o.Data()
	at := 0
	return walk(shape, [][]int{m.Strides, v.Strides}, func(_ int, off []int) error {
		if *(*uint8)(unsafe.Add(mp, off[0])) != 0 {
			moveElem(unsafe.Add(op, at*es), unsafe.Add(vp, off[1]*es), es)
			at++
		}
		return nil
	})
}

// broadcastView is o viewed with shape (zero strides for broadcast dims).
func broadcastView(o *kernel.Operand, shape []int) kernel.Operand {
	v := *o
	v.Shape = shape
	v.Strides = make([]int, len(shape))
	for d := range shape {
		od := d - (len(shape) - len(o.Shape))
		if od >= 0 && o.Shape[od] != 1 {
			v.Strides[d] = o.Strides[od]
		}
	}
	return v
}

// nonzeroKernel lists the indices of the non-zero elements: int64 [count, ndim].
func nonzeroKernel(c *kernel.Call) error {
	in := &c.In[0]
	b, err := contiguousCopy(in, dtype.Bool)
	if err != nil {
		return err
	}
	defer b.Mem.Release()
	n := kernel.Numel(in.Shape)
	flags := bytesAt(b.Data(), n)
	count := 0
	for _, f := range flags {
		count += int(f)
	}
	nd := len(in.Shape)
	o := &c.Out[0]
	o.Shape, o.Strides = c.NewInts(2), c.NewInts(2)
	o.Shape[0], o.Shape[1] = count, nd
	o.Strides[0], o.Strides[1] = nd, 1
	if err := bindNew(o, count*nd*8); err != nil {
		return err
	}
	out := unsafe.Slice((*int64)(o.Data()), count*nd)
	idx := make([]int, nd)
	row := 0
	for i := range n {
		if flags[i] != 0 {
			for d := range nd {
				out[row*nd+d] = int64(idx[d])
			}
			row++
		}
		for d := nd - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < in.Shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return nil
}
