package torch_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/internal/conformance"
)

// TestViewsLinalgGolden runs the golden cases of the views and linear
// algebra of views_more.go and linalg_more.go (testdata/views_linalg.json,
// written by scripts/golden/views_linalg.py with PyTorch) on the CPU.
func TestViewsLinalgGolden(t *testing.T) { conformance.Run(t, "views_linalg.json", "cpu") }

// TestViewsLinalgGoldenMeta runs them on the meta device: shapes and dtypes.
func TestViewsLinalgGoldenMeta(t *testing.T) { conformance.Run(t, "views_linalg.json", "meta") }
