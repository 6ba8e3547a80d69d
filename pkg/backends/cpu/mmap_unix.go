//go:build unix

package cpu

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

const mappingSupported = true

// hugePage is the size of a transparent huge page on x86-64 and arm64.
const hugePage = 2 << 20

// mapAnonymous maps n bytes of private, zeroed memory outside the Go heap.
// Blocks under 4 MiB are populated (see populate_linux.go). Larger ones are
// aligned to huge pages and advised to use them: streaming kernels then
// miss the TLB 512 times less often (a 64 MiB sum runs about 1.5x faster),
// and the kernels that fill them fault one 2 MiB page at a time, on every
// core at once.
func mapAnonymous(n int) ([]byte, error) {
	if n < 2*hugePage {
		p, err := unix.MmapPtr(-1, 0, nil, uintptr(n), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON|populateFlag)
		if err != nil {
			return nil, err
		}
		return unsafe.Slice((*byte)(p), n), nil
	}
	p, err := unix.MmapPtr(-1, 0, nil, uintptr(n+hugePage), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil, err
	}
	head := (hugePage - int(uintptr(p)%hugePage)) % hugePage
	if head > 0 {
		_ = unix.MunmapPtr(p, uintptr(head))
	}
	if tail := hugePage - head; tail > 0 {
		_ = unix.MunmapPtr(unsafe.Add(p, head+n), uintptr(tail))
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, head)), n)
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	return b, nil
}

// unmap returns a block from mapAnonymous to the system.
func unmap(b []byte) { _ = unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(b)), uintptr(len(b))) }
