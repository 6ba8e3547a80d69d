package torch_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/internal/conformance"
)

// TestOpsGolden runs the golden op suite (testdata/ops.json, written by
// scripts/golden/ops.py with real PyTorch) on the CPU: values, dtypes
// and shapes as PyTorch's.
func TestOpsGolden(t *testing.T) { conformance.Run(t, "ops.json", "cpu") }

// TestOpsGoldenMeta runs the same cases on the meta device: the shapes and
// dtypes of PyTorch's results, from the meta functions alone.
func TestOpsGoldenMeta(t *testing.T) { conformance.Run(t, "ops.json", "meta") }
