package torch

import (
	"sync"
	"unsafe"
)

// Gradients of a leaf used by several goroutines' backward passes are
// accumulated under a lock; a small table of striped locks avoids a mutex
// in every tensor.
var gradLocks [64]sync.Mutex

func accumulateLock(t *Tensor) *sync.Mutex {
	return &gradLocks[(uintptr(unsafe.Pointer(t))>>6)%uintptr(len(gradLocks))]
}
