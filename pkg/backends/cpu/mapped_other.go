//go:build !linux

package cpu

import "github.com/mindtorch/mindtorch/pkg/backends/kernel"

// File mappings and shared memory need Linux (mmap, memfd) in this version.

func unsupported(what string) error {
	return kernel.Errorf(kernel.ErrNotImplemented, "%s needs Linux in this version", what)
}

// MapFile maps a file (Linux only in this version).
func MapFile(path string, shared bool, nbytes int) (kernel.Memory, error) {
	return nil, unsupported("mapping a file")
}

// SharedMemory makes shared memory (Linux only in this version).
func SharedMemory(n int) (kernel.Memory, error) { return nil, unsupported("shared memory") }

// OpenShared maps shared memory of another process (Linux only in this version).
func OpenShared(fd, n int) (kernel.Memory, error) { return nil, unsupported("shared memory") }

// MappedStats returns zeros: nothing is mapped on this system.
func MappedStats() (mappings, fds int64) { return 0, 0 }
