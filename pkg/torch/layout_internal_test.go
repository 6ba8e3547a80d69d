package torch

import (
	"testing"
	"unsafe"
)

// A small result is allocated with its tensor and storage in one object
// (cpu.AllocateWith), whose size then falls on a Go size class that keeps
// the data aligned without slack (320 bytes with up to 64 bytes of data).
// Growing Tensor moves it to a larger class or costs slack: the CPU
// package's TestSmallAllocationsNeedNoSlack assumes this size.
func TestSmallTensorLayout(t *testing.T) {
	if got := unsafe.Sizeof(tensorAndStorage{}); got != 216 {
		t.Errorf("tensor and storage take %d bytes, want 216 (see kernel.AllocateWith and the CPU backend's TestSmallAllocationsNeedNoSlack)", got)
	}
}
