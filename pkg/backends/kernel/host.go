package kernel

import (
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/device"
)

// What the tensor layer needs from the backends besides ops and
// allocation, registered by the backends in their init, so that pkg/torch
// imports no backend: host memory of other kinds (wrapped Go memory, mapped
// files, shared memory), PyTorch's random generator, stream recording and
// what each backend found on the host.

// HostMemory is the CPU backend's memory of other kinds than Allocate's.
type HostMemory struct {
	// Wrap makes memory over n bytes at p, which the caller owns and keeps
	// alive; Release does not free them.
	Wrap func(p unsafe.Pointer, n int) Memory
	// MapFile maps the file at path (PyTorch's UntypedStorage.from_file).
	MapFile func(path string, shared bool, nbytes int) (Memory, error)
	// SharedMemory makes nbytes of memory another process can map.
	SharedMemory func(nbytes int) (Memory, error)
	// OpenShared maps the shared memory of another process, handed over
	// as the descriptor fd.
	OpenShared func(fd, nbytes int) (Memory, error)
}

var hostMemory HostMemory

// RegisterHostMemory installs the CPU backend's HostMemory.
func RegisterHostMemory(h HostMemory) { hostMemory = h }

// Host returns the registered HostMemory; its functions are nil when no
// CPU backend is linked in, and the ones below report that.
func Host() HostMemory { return hostMemory }

// WrapHost makes memory over n bytes at p with the CPU backend's Wrap.
func WrapHost(p unsafe.Pointer, n int) (Memory, error) {
	if hostMemory.Wrap == nil {
		return nil, noBackend(device.CPU)
	}
	return hostMemory.Wrap(p, n), nil
}

// Generator is PyTorch's CPU random generator (mt19937), the source of
// every random op: a Random that can be seeded.
type Generator interface {
	Random
	// Seed reseeds the generator; the caller holds its lock.
	Seed(seed uint64)
	// InitialSeed is the seed last set; the caller holds its lock.
	InitialSeed() uint64
}

// Philox is the counter-based stream a generator keeps for each device that
// draws its own random numbers, as PyTorch's CUDA generator and torch_npu's
// NPU generator do: the generator's seed and an offset per device, which
// every draw advances by the counters its kernel consumes. The CPU
// backend's generator implements it; a kernel that draws on a device asks
// c.Random for it.
type Philox interface {
	// PhiloxInputs returns the seed and device's offset and advances the
	// offset by increment rounded up to a multiple of 4 (torch_npu's
	// philox_engine_inputs). The caller holds the generator's lock.
	PhiloxInputs(device int, increment uint64) (seed, offset uint64)
}

var newGenerator func() Generator

// RegisterGenerator installs the function that makes generators, seeded
// with PyTorch's default seed (the CPU backend's).
func RegisterGenerator(f func() Generator) { newGenerator = f }

// NewGenerator makes a generator with PyTorch's default seed, or returns
// nil when no backend registered one.
func NewGenerator() Generator {
	if newGenerator == nil {
		return nil
	}
	return newGenerator()
}

// Stream is a queue of device work: a backend's stream type (an
// *npu.Stream). It is any value, so that layers above the backends can
// pass one along without importing the backend; memory ignores streams of
// other backends.
type Stream = any

// StreamRecorder is optional for device memory that a caching allocator
// reuses per stream (an NPU's): RecordStream marks the memory as used by
// work on s too (PyTorch's Tensor.record_stream). A stream of another
// backend, or of another device, is ignored.
type StreamRecorder interface {
	RecordStreamOf(s Stream)
}

// BackendInfo says what a backend found on this host.
type BackendInfo struct {
	Available bool
	Detail    string // libraries, instruction sets, or why it is not available
}

var backendInfo [device.NumTypes]func() BackendInfo

// RegisterBackendInfo installs the function that reports what the backend
// of device type t found (it may load libraries the first time).
func RegisterBackendInfo(t device.Type, f func() BackendInfo) { backendInfo[t] = f }

// InfoOf reports what the backend of device type t found; a backend not
// linked in is unavailable.
func InfoOf(t device.Type) BackendInfo {
	if t >= device.NumTypes || backendInfo[t] == nil {
		return BackendInfo{Detail: "the " + t.String() + " backend is not linked in"}
	}
	return backendInfo[t]()
}

func noBackend(t device.Type) *OpError {
	return Errorf(ErrDevice, "the %s backend is not linked in", t)
}
