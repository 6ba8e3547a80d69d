package torch

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
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
	cpu, npu := kernel.InfoOf(device.CPU), kernel.InfoOf(device.NPU)
	return []BackendInfo{
		{Device: "cpu", Available: cpu.Available, Detail: cpu.Detail},
		{Device: "meta", Available: true, Detail: "shapes and dtypes only"},
		{Device: "npu", Available: npu.Available, Detail: npu.Detail},
	}
}
