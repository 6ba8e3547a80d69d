package torch_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/internal/conformance"
)

// TestReductionsGolden runs the golden cases of the reductions of
// reduce_more.go (testdata/reductions.json, written by
// scripts/golden/reductions.py with real PyTorch) on the CPU.
func TestReductionsGolden(t *testing.T) { conformance.Run(t, "reductions.json", "cpu") }

// TestReductionsGoldenMeta runs the same cases on the meta device: shapes
// and dtypes only.
func TestReductionsGoldenMeta(t *testing.T) { conformance.Run(t, "reductions.json", "meta") }
