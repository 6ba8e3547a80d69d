package kernel

import (
	"testing"
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// testMemory is memory at a host or device address, or at none (as meta
// memory).
type testMemory struct {
	host unsafe.Pointer
	dev  uintptr
	on   device.Device
}

func (m *testMemory) Device() device.Device   { return m.on }
func (m *testMemory) Nbytes() int             { return 1 << 10 }
func (m *testMemory) HostPtr() unsafe.Pointer { return m.host }
func (m *testMemory) DevicePtr() uintptr      { return m.dev }
func (m *testMemory) Release()                {}
func (m *testMemory) Released() bool          { return false }

// view is an operand of memory m: dims holds the shape, then the strides.
func view(m Memory, offset int, dims ...int) Operand {
	n := len(dims) / 2
	return Operand{Mem: m, DType: dtype.Float32, Shape: dims[:n], Strides: dims[n:], Offset: offset}
}

// TestPartialOverlap follows PyTorch's get_overlap_status: the cases are
// those torch 1.13 refuses or allows for x[1:].add_(x[:-1]) and its kin.
func TestPartialOverlap(t *testing.T) {
	buf := make([]byte, 1<<10)
	host := &testMemory{host: unsafe.Pointer(&buf[0]), on: device.CPUDevice}
	// The same bytes as host seen through another Memory (a storage slice):
	// compared by address.
	slice := &testMemory{host: unsafe.Pointer(&buf[16]), on: device.CPUDevice}
	other := &testMemory{host: unsafe.Pointer(&make([]byte, 64)[0]), on: device.CPUDevice}
	meta := &testMemory{on: device.Device{Type: device.Meta}}
	npu0 := &testMemory{dev: 1 << 20, on: device.Device{Type: device.NPU}}
	npu0b := &testMemory{dev: 1<<20 + 8, on: device.Device{Type: device.NPU}}
	npu1 := &testMemory{dev: 1<<20 + 8, on: device.Device{Type: device.NPU, Index: 1}}
	cases := []struct {
		name    string
		out, in Operand
		want    bool
	}{
		{"same view", view(host, 0, 6, 1), view(host, 0, 6, 1), false},
		{"shifted by one", view(host, 1, 5, 1), view(host, 0, 5, 1), true},
		{"disjoint halves", view(host, 0, 3, 1), view(host, 3, 3, 1), false},
		{"touching ends", view(host, 0, 3, 1), view(host, 3, 1, 1), false},
		{"same bytes, transposed", view(host, 0, 2, 3, 3, 1), view(host, 0, 2, 3, 1, 2), true},
		{"same bytes, other shape", view(host, 0, 6, 1), view(host, 0, 2, 3, 3, 1), true},
		{"strided slices interleave", view(host, 0, 3, 2), view(host, 1, 3, 2), false},
		{"expanded input", view(host, 0, 3, 1), view(host, 1, 3, 0), false},
		{"not dense: too hard", view(host, 0, 2, 2, 3, 1), view(host, 1, 2, 2, 3, 1), false},
		{"empty input", view(host, 0, 6, 1), view(host, 1, 0, 1), false},
		{"other memory", view(host, 0, 6, 1), view(other, 0, 6, 1), false},
		{"a slice's memory, by address", view(host, 4, 4, 1), view(slice, 1, 4, 1), true},
		{"a slice's memory, same elements", view(host, 4, 4, 1), view(slice, 0, 4, 1), false},
		{"meta, same memory", view(meta, 1, 5, 1), view(meta, 0, 5, 1), true},
		{"meta, other memory", view(meta, 1, 5, 1), view(&testMemory{on: meta.on}, 0, 5, 1), false},
		{"device addresses", view(npu0, 2, 4, 1), view(npu0b, 0, 4, 1), false},
		{"device addresses, shifted", view(npu0, 3, 4, 1), view(npu0b, 0, 4, 1), true},
		{"other device", view(npu0, 3, 4, 1), view(npu1, 0, 4, 1), false},
	}
	for _, c := range cases {
		if got := PartialOverlap(&c.out, &c.in); got != c.want {
			t.Errorf("%s: PartialOverlap = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestIsNonOverlappingAndDenseAllocatesNothing(t *testing.T) {
	shape, strides := []int{2, 3, 4}, []int{1, 8, 2}
	if n := testing.AllocsPerRun(100, func() { IsNonOverlappingAndDense(shape, strides) }); n != 0 {
		t.Errorf("IsNonOverlappingAndDense allocates %v times", n)
	}
	if !IsNonOverlappingAndDense(shape, strides) {
		t.Errorf("a permuted dense layout is dense")
	}
}
