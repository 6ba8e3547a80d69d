package cpu

import (
	"os"
	"runtime"
	"sync"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
)

// BLASEnv names the environment variable that chooses the OpenBLAS library:
// a path or soname (default libopenblas.so.0), or "none" for gonum's BLAS.
const BLASEnv = "MINDTORCH_OPENBLAS"

// BLASInfo says which BLAS the CPU backend's float matrix products use.
type BLASInfo struct {
	Name    string // "openblas" or "gonum"
	Library string // what was opened, or tried
	Detail  string // OpenBLAS's build configuration, or why it was not loaded
	Threads int    // OpenBLAS's thread count (gonum uses goroutines)
}

var blasState struct {
	once sync.Once
	info BLASInfo
	ok   bool
}

// BLAS loads OpenBLAS on first use and reports what the backend found.
func BLAS() BLASInfo {
	blasState.once.Do(loadBLAS)
	return blasState.info
}

func loadBLAS() {
	lib := os.Getenv(BLASEnv)
	if lib == "" {
		lib = "libopenblas.so.0"
	}
	info := BLASInfo{Name: "gonum", Library: lib}
	if lib == "none" {
		info.Detail = BLASEnv + "=none"
		blasState.info = info
		return
	}
	cfg, err := cpukernels.LoadBLAS(lib)
	if err != nil {
		info.Detail = err.Error()
		blasState.info = info
		return
	}
	// As many OpenBLAS threads as Go runs goroutines in parallel: more would
	// spin against Go's threads on a small machine.
	info.Threads = runtime.GOMAXPROCS(0)
	cpukernels.SetBLASThreads(info.Threads)
	info.Name, info.Detail = "openblas", cfg
	blasState.info = info
	blasState.ok = true
}

// useOpenBLAS reports whether float products go to OpenBLAS.
func useOpenBLAS() bool {
	blasState.once.Do(loadBLAS)
	return blasState.ok
}

// ISA is the instruction set the CPU kernels run with: "avx512", "avx2" or "generic".
func ISA() string { return cpukernels.ISA() }
