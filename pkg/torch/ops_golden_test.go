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

// TestOpsGoldenPipeline runs every case on the CPU at once and inside a
// Pipeline, inputs made inside it too: the same errors, layouts, bits and
// gradients, and PyTorch's values.
func TestOpsGoldenPipeline(t *testing.T) {
	for _, file := range conformance.Files {
		t.Run(strings.TrimSuffix(file, ".json"), func(t *testing.T) { conformance.RunPipeline(t, file, "cpu") })
	}
}

// TestOpsGoldenPipelineMeta is TestOpsGoldenPipeline on the meta device,
// whose ops a pipeline does not queue: the same shapes, dtypes and errors.
func TestOpsGoldenPipelineMeta(t *testing.T) {
	for _, file := range conformance.Files {
		t.Run(strings.TrimSuffix(file, ".json"), func(t *testing.T) { conformance.RunPipeline(t, file, "meta") })
	}
}
