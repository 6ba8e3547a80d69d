package kernel

import "slices"

// PartialOverlap reports whether a written-to operand and an input share
// some of their memory but are not the same view of it, the case PyTorch
// refuses ("some elements of the input tensor and the written-to tensor
// refer to a single memory location"), by the rule of its
// get_overlap_status:
//
//   - operands that share no bytes, or either empty, do not overlap;
//   - the same view (offset, shape and strides) overlaps fully, which is
//     allowed: an in-place op reads each element before writing it;
//   - when either is not dense and free of internal overlap (a strided
//     slice, an expanded view), the question is too hard and is let pass,
//     as PyTorch does;
//   - otherwise two dense views that cover the same bytes with different
//     strides, or only some of the same bytes, overlap partially.
func PartialOverlap(out, in *Operand) bool {
	if out.Mem == nil || in.Mem == nil || out.Numel() == 0 || in.Numel() == 0 {
		return false
	}
	ob, ib, ok := bases(out.Mem, in.Mem)
	if !ok {
		return false
	}
	oBegin := ob + uintptr(out.Offset*out.DType.ItemSize())
	iBegin := ib + uintptr(in.Offset*in.DType.ItemSize())
	if oBegin == iBegin && slices.Equal(out.Shape, in.Shape) && slices.Equal(out.Strides, in.Strides) {
		return false // the same view
	}
	oEnd := oBegin + uintptr(out.Numel()*out.DType.ItemSize())
	iEnd := iBegin + uintptr(in.Numel()*in.DType.ItemSize())
	if oEnd <= iBegin || iEnd <= oBegin {
		return false
	}
	if !IsNonOverlappingAndDense(out.Shape, out.Strides) || !IsNonOverlappingAndDense(in.Shape, in.Strides) {
		return false
	}
	return oBegin != iBegin || oEnd != iEnd || !slices.Equal(out.Strides, in.Strides)
}

// bases returns addresses of two memories that can be compared: their host
// addresses, their device addresses, or 0 for both when they are the same
// memory without an address (meta memory). ok is false when the memories
// cannot share bytes.
func bases(a, b Memory) (uintptr, uintptr, bool) {
	if a == b {
		return 0, 0, true
	}
	if pa, pb := a.HostPtr(), b.HostPtr(); pa != nil && pb != nil {
		return uintptr(pa), uintptr(pb), true
	}
	if da, db := a.DevicePtr(), b.DevicePtr(); da != 0 && db != 0 && a.Device() == b.Device() {
		return da, db, true
	}
	return 0, 0, false
}
