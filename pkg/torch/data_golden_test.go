package torch_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/internal/conformance"
)

// TestDataGolden runs the golden cases of the data-movement and indexing
// ops (testdata/data.json, written by scripts/golden/data.py with real
// PyTorch) on the CPU.
func TestDataGolden(t *testing.T) { conformance.Run(t, "data.json", "cpu") }

// TestDataGoldenMeta runs them on the meta device: PyTorch's shapes and
// dtypes, and a refusal for the ops whose shape is data.
func TestDataGoldenMeta(t *testing.T) { conformance.Run(t, "data.json", "meta") }
