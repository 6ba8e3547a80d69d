package torch_test

import (
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/internal/conformance"
)

// TestOpsGolden runs the golden op suite (every file of
// conformance.Files, written by scripts/golden with real PyTorch) on the
// CPU: values, dtypes, shapes, errors and gradients as PyTorch's. Subtests
// are named file/op/n.
func TestOpsGolden(t *testing.T) {
	for _, file := range conformance.Files {
		t.Run(strings.TrimSuffix(file, ".json"), func(t *testing.T) { conformance.Run(t, file, "cpu") })
	}
}

// TestOpsGoldenMeta runs the same cases on the meta device: the shapes and
// dtypes of PyTorch's results, from the meta functions alone.
func TestOpsGoldenMeta(t *testing.T) {
	for _, file := range conformance.Files {
		t.Run(strings.TrimSuffix(file, ".json"), func(t *testing.T) { conformance.Run(t, file, "meta") })
	}
}
