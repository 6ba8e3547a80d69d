package torch

import (
	"sync/atomic"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// Storage is the bytes a tensor views, on one device: reference-counted
// device memory, CPU memory, or (meta) a size without data. Tensors that
// share a storage see each other's writes.
type Storage struct {
	mem     kernel.Memory
	version atomic.Int64 // bumped by every in-place write (autograd checks it)
}

func newStorage(m kernel.Memory) *Storage { return &Storage{mem: m} }

// Device is where the bytes live.
func (s *Storage) Device() Device { return s.mem.Device() }

// Nbytes is the size in bytes.
func (s *Storage) Nbytes() int { return s.mem.Nbytes() }

// Version counts the in-place writes to the storage.
func (s *Storage) Version() int64 { return s.version.Load() }

// Release frees the storage's memory now: large CPU allocations and device
// memory return to their caching allocator. Ops on tensors over the storage
// report an error afterwards. Releasing is optional on the CPU (the garbage
// collector reclaims memory no tensor refers to, only later) and releasing
// twice is harmless.
func (s *Storage) Release() { s.mem.Release() }

func (s *Storage) bump() { s.version.Add(1) }
