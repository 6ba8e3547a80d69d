package npu_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/internal/conformance"
)

// TestConformance runs the golden op suite (the cases scripts/golden wrote
// with PyTorch, the same that pkg/torch runs on cpu and meta) on the NPU:
// the emulator in CI, CANN with make test-npu.
func TestConformance(t *testing.T) {
	for _, file := range conformance.Files {
		t.Run(file, func(t *testing.T) { conformance.Run(t, file, "npu") })
	}
}
