package kernel

// HostTransfer is implemented by device memory that the host cannot
// address (an NPU's): it copies bytes between the memory and the host. The
// dispatcher's host fallback uses it to run the CPU kernel of an op that a
// device lacks (see pkg/dispatch).
type HostTransfer interface {
	// ReadHost copies len(dst) bytes, starting at byte off of the memory,
	// into dst, after the work queued on the memory's device is done.
	ReadHost(dst []byte, off int) error
	// WriteHost copies src into the memory, starting at byte off.
	WriteHost(off int, src []byte) error
}
