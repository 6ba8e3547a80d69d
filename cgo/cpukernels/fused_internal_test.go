package cpukernels

import (
	"testing"
	"unsafe"
)

// TestFusedLayout pins the Go structs handed to mt_fused to C's.
func TestFusedLayout(t *testing.T) {
	if got := int(unsafe.Sizeof(FusedStep{})); got != cSizeofFusedStep {
		t.Errorf("FusedStep is %d bytes, C's mt_fstep %d", got, cSizeofFusedStep)
	}
	if got := int(unsafe.Sizeof(FusedSlot{})); got != cSizeofFusedSlot {
		t.Errorf("FusedSlot is %d bytes, C's mt_fslot %d", got, cSizeofFusedSlot)
	}
	if got := int(unsafe.Offsetof(FusedStep{}.Plan)); got != cOffsetofFusedPlan {
		t.Errorf("FusedStep.Plan at %d, C's at %d", got, cOffsetofFusedPlan)
	}
}
