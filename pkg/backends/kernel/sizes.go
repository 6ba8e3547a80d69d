package kernel

import "math/bits"

// Checked size arithmetic. Every tensor keeps two bounds, checked when its
// shape or strides come from a user (creation, views, storage): its sizes
// multiply (0 counting as 1, so that contiguous strides are representable
// too) to at most MaxNbytes bytes, and the elements it reaches lie within
// MaxNbytes bytes. Sums and products of the sizes, strides, offsets and byte
// counts of valid tensors then never overflow an int, and the unchecked
// helpers (Numel, ContiguousStrides, StorageExtent) are safe on them.

// MaxNbytes is the largest number of bytes a tensor may have or reach
// (2^62): larger byte counts are refused as overflows.
const MaxNbytes = 1 << 62

// CheckedNumel returns the number of elements of shape after checking that
// a tensor of that shape with elements of itemSize bytes is valid: no
// negative size ("Trying to create tensor with negative dimension -1:
// [-1]"), and at most MaxNbytes bytes ("Storage size calculation
// overflowed with sizes=[...]"). Both errors are ErrShape.
func CheckedNumel(shape []int, itemSize int) (int, error) {
	n, dense := 1, uint64(max(itemSize, 1))
	for _, s := range shape {
		switch {
		case s > 1:
			hi, lo := bits.Mul64(dense, uint64(s))
			if hi != 0 || lo > MaxNbytes {
				return 0, sizesOverflow(shape)
			}
			dense = lo
		case s < 0:
			return 0, Errorf(ErrShape, "Trying to create tensor with negative dimension %d: %s", s, ShapeString(shape))
		}
		n *= s // n <= dense: no overflow
	}
	return n, nil
}

// CheckedNbytes is the number of bytes of a contiguous tensor of shape
// with elements of itemSize bytes, checked as CheckedNumel.
func CheckedNbytes(shape []int, itemSize int) (int, error) {
	n, err := CheckedNumel(shape, itemSize)
	return n * itemSize, err
}

// StorageNbytes is the number of bytes of storage a view with shape,
// strides and offset (in elements of itemSize bytes) reaches: one past its
// furthest element, 0 when it has no elements (as PyTorch's
// computeStorageNbytes). A negative offset is ErrArgument ("Tensor: invalid
// storage offset -1"); a negative size is ErrShape, and so are a negative
// stride of a dim of more than one element and a byte count above
// MaxNbytes, unless the view has no elements ("Storage size calculation
// overflowed with sizes=[3] and strides=[...]").
func StorageNbytes(shape, strides []int, offset, itemSize int) (int, error) {
	if len(strides) != len(shape) {
		return 0, Errorf(ErrShape, "mismatch in length of strides and shape")
	}
	if offset < 0 {
		return 0, Errorf(ErrArgument, "Tensor: invalid storage offset %d", offset)
	}
	end, empty, over := uint64(offset), false, offset > MaxNbytes // end: the furthest element
	for i, s := range shape {
		st := strides[i]
		switch {
		case s < 0:
			return 0, stridesOverflow(shape, strides)
		case s <= 1: // the stride of a dim of size 0 or 1 moves nothing
			empty = empty || s == 0
		case st < 0:
			over = true
		default:
			hi, lo := bits.Mul64(uint64(s-1), uint64(st))
			end += lo // until over, both terms are at most MaxNbytes: no wrap
			over = over || hi != 0 || lo > MaxNbytes || end > MaxNbytes
		}
	}
	if empty {
		return 0, nil
	}
	hi, lo := bits.Mul64(end+1, uint64(max(itemSize, 1)))
	if over || hi != 0 || lo > MaxNbytes {
		return 0, stridesOverflow(shape, strides)
	}
	return int(lo), nil
}

// ViewNbytes is StorageNbytes, except that a view without elements needs
// the bytes before its offset: its data address must lie within its
// storage too (Go must never hold a pointer past the end of an object),
// where PyTorch lets it be anything.
func ViewNbytes(shape, strides []int, offset, itemSize int) (int, error) {
	need, err := StorageNbytes(shape, strides, offset, itemSize)
	if err != nil || need > 0 {
		return need, err
	}
	n, ok := MulSize(offset, max(itemSize, 1))
	if !ok {
		return 0, stridesOverflow(shape, strides)
	}
	return n, nil
}

// CheckView checks the layout of a view of a storage of storageNbytes
// bytes: its sizes (CheckedNumel), its strides and offset (ViewNbytes),
// and that it lies within the storage (OutOfBounds).
func CheckView(shape, strides []int, offset, itemSize, storageNbytes int) error {
	if _, err := CheckedNumel(shape, itemSize); err != nil {
		return err
	}
	need, err := ViewNbytes(shape, strides, offset, itemSize)
	if err != nil {
		return err
	}
	if need > storageNbytes {
		return OutOfBounds(shape, strides, offset, itemSize, need, storageNbytes)
	}
	return nil
}

// OutOfBounds is PyTorch's error for a view whose elements reach need
// bytes of a storage of have bytes ("setStorage: sizes [3], strides [2],
// storage offset 0, and itemsize 4 requiring a storage size of 20 are out
// of bounds for storage of size 12"), an ErrShape.
func OutOfBounds(shape, strides []int, offset, itemSize, need, have int) error {
	return Errorf(ErrShape, "setStorage: sizes %s, strides %s, storage offset %d, and itemsize %d requiring a storage "+
		"size of %d are out of bounds for storage of size %d", ShapeString(shape), ShapeString(strides), offset, itemSize, need, have)
}

// CheckOperand refuses an operand whose elements reach past the end of
// its memory (a storage that shrank under its tensor), with OutOfBounds's
// error. An operand without memory passes. It allocates nothing when the
// operand is within bounds: the dispatcher can call it on every operand.
func CheckOperand(o *Operand) error {
	if o.Mem == nil {
		return nil
	}
	size := o.DType.ItemSize()
	need, err := StorageNbytes(o.Shape, o.Strides, o.Offset, size)
	if have := o.Mem.Nbytes(); err == nil && need > have {
		err = OutOfBounds(o.Shape, o.Strides, o.Offset, size, need, have)
	}
	return err
}

// MulSize returns a*b for sizes a, b >= 0, and false when the product
// exceeds MaxNbytes (a size no tensor can have).
func MulSize(a, b int) (int, bool) {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return int(lo), a >= 0 && b >= 0 && hi == 0 && lo <= MaxNbytes
}

// CheckAllocation refuses to allocate nbytes < 0 or > MaxNbytes (an
// ErrShape): allocators call it before asking their device.
func CheckAllocation(nbytes int) error {
	if nbytes < 0 || nbytes > MaxNbytes {
		return Errorf(ErrShape, "Storage size calculation overflowed: cannot allocate %d bytes (the limit is %d)", nbytes, MaxNbytes)
	}
	return nil
}

func sizesOverflow(shape []int) error {
	return Errorf(ErrShape, "Storage size calculation overflowed with sizes=%s", ShapeString(shape))
}

func stridesOverflow(shape, strides []int) error {
	return Errorf(ErrShape, "Storage size calculation overflowed with sizes=%s and strides=%s", ShapeString(shape), ShapeString(strides))
}
