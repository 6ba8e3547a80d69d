package torch

import (
	"fmt"
	"runtime"

	"github.com/mindtorch/mindtorch/pkg/backends/cpu"
	"github.com/mindtorch/mindtorch/pkg/backends/npu"
)

// BackendInfo says what one backend found on this host.
type BackendInfo struct {
	Device    string // "cpu", "meta", "npu"
	Available bool
	Detail    string // libraries, instruction sets, or why it is not available
}

// Backends reports the backends of this binary and what each found: the
// CPU's BLAS (OpenBLAS loaded at first use, else gonum's) and the
// instruction set of its kernels; the NPUs and CANN, or why there are none.
// It loads OpenBLAS and CANN if they were not yet.
func Backends() []BackendInfo {
	b := cpu.BLAS()
	blas := "gonum BLAS (pure Go)"
	if b.Name == "openblas" {
		blas = fmt.Sprintf("OpenBLAS %s (%s, %d threads)", b.Library, b.Detail, b.Threads)
	} else if b.Detail != "" {
		blas += "; OpenBLAS not loaded: " + b.Detail
	}
	return []BackendInfo{
		{Device: "cpu", Available: true, Detail: fmt.Sprintf("%s/%s, kernels %s, %s, %d cores used",
			runtime.GOOS, runtime.GOARCH, cpu.ISA(), blas, runtime.GOMAXPROCS(0))},
		{Device: "meta", Available: true, Detail: "shapes and dtypes only"},
		{Device: "npu", Available: npu.IsAvailable(), Detail: npu.Info()},
	}
}
