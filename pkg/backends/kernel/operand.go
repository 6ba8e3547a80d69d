package kernel

import (
	"slices"
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// Operand is a tensor as a kernel sees it: memory and a strided layout.
// Strides and Offset count elements, not bytes.
type Operand struct {
	Mem     Memory         // the storage's memory; nil while a meta function runs
	Ptr     unsafe.Pointer // Mem.HostPtr(), cached for host kernels
	DType   dtype.DType
	Shape   []int
	Strides []int
	Offset  int
}

// Device is where the operand's memory lives (the CPU when it has none yet).
func (o *Operand) Device() device.Device {
	if o.Mem == nil {
		return device.CPUDevice
	}
	return o.Mem.Device()
}

// Numel is the number of elements.
func (o *Operand) Numel() int { return Numel(o.Shape) }

// Dim is the number of dimensions.
func (o *Operand) Dim() int { return len(o.Shape) }

// IsContiguous reports whether the layout is row-major.
func (o *Operand) IsContiguous() bool { return IsContiguous(o.Shape, o.Strides) }

// Data is the address of the first element (base plus offset) for host
// memory, nil otherwise. An operand without elements may have an offset
// past the end of its memory (PyTorch allows it for empty views); its
// Data is the base, so that no pointer past the memory ever exists.
func (o *Operand) Data() unsafe.Pointer {
	if o.Ptr == nil {
		return nil
	}
	if o.Offset != 0 && slices.Contains(o.Shape, 0) {
		return o.Ptr
	}
	return unsafe.Add(o.Ptr, o.Offset*o.DType.ItemSize())
}

// Bind points the operand at memory (on allocation of an output).
func (o *Operand) Bind(m Memory) {
	o.Mem = m
	o.Ptr = m.HostPtr()
}
