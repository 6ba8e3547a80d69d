// Package kernel is the contract between the dispatcher and the backends.
//
// A backend (pkg/backends/cpu, pkg/backends/npu) sees tensors only as
// Operands: a Memory, a dtype, a shape, strides and an offset in elements.
// It registers, in its init, one KernelFunc per op it implements for its
// device type and an Allocator for its memory; pkg/backends/meta registers the
// one MetaFunc of each op, which computes the op's outputs (shape, dtype,
// strides) or rejects bad input. The dispatcher (pkg/dispatch) runs the meta
// function, allocates the outputs and calls the kernel. Nothing here knows of
// pkg/torch, so backends never import it.
//
// The backends also register here what the tensor layer needs without
// importing them (host.go): wrapped, mapped and shared host memory,
// PyTorch's generator, stream recording and what each backend found; and
// device memory implements HostTransfer, through which the dispatcher runs
// ops a device lacks on the host.
//
// The package also holds what every layer shares: the typed errors, the
// Scalar attribute type and the layout arithmetic (broadcasting, strides,
// contiguity) that meta functions, views and kernels agree on.
package kernel
