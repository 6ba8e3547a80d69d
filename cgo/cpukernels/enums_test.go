package cpukernels_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/internal/optable"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
)

// TestEnumsPinned checks every Go/C enum pair as the C compiler sees it:
// each dtype's C number is pkg/dtype's, each pointwise op's C number is its
// kernel.OpID, and each op ID's name is the table's.
func TestEnumsPinned(t *testing.T) {
	for _, d := range optable.CDTypes {
		got, ok := cpukernels.CEnums[d.Name]
		if !ok || got != int(d.DType) {
			t.Errorf("%s = %d in C, pkg/dtype's %v is %d", d.Name, got, d.DType, int(d.DType))
		}
	}
	if int(kernel.NumOps) != len(optable.Ops)+1 {
		t.Fatalf("kernel.NumOps = %d, the table has %d ops", kernel.NumOps, len(optable.Ops))
	}
	for i, row := range optable.Ops {
		op := kernel.OpID(i + 1)
		if op.String() != row.Name {
			t.Errorf("op %d is %q in Go, %q in the table", op, op, row.Name)
		}
		if row.Kind == optable.Other || (row.Float == "" && row.Int == "" && row.Bool == "" && !row.CustomC) {
			continue
		}
		if got, ok := cpukernels.CEnums[optable.CName(row.ID)]; !ok || got != int(op) {
			t.Errorf("%s = %d in C, kernel.Op%s = %d", optable.CName(row.ID), got, row.ID, op)
		}
	}
	// The named constants the CPU backend uses directly.
	for name, pair := range map[string][2]int{
		"add": {cpukernels.OpAdd, int(kernel.OpAdd)}, "div": {cpukernels.OpDiv, int(kernel.OpDiv)},
		"log": {cpukernels.OpLog, int(kernel.OpLog)}, "where": {cpukernels.OpWhere, int(kernel.OpWhere)},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s: C %d, Go %d", name, pair[0], pair[1])
		}
	}
	if cpukernels.OpNumPointwise <= cpukernels.OpGeluTanh {
		t.Errorf("MT_NUM_POINTWISE %d does not follow the variants", cpukernels.OpNumPointwise)
	}
}
