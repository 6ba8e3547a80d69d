package torch_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Accessors hand out copies: changing what they return changes nothing in
// the tensor (the s := x.Shape(); s[1] = 100000 killed the process
// at the next Fill_).
func TestAccessorsReturnCopies(t *testing.T) {
	for _, x := range []*torch.Tensor{torch.Zeros([]int{2, 3}), torch.Zeros([]int{2, 3, 4, 5, 6})} {
		s, st := x.Shape(), x.Stride()
		s[1], st[0] = 100000, 100000
		if slices.Contains(x.Shape(), 100000) || slices.Contains(x.Stride(), 100000) {
			t.Fatalf("the tensor changed with the returned slices: %v %v", x.Shape(), x.Stride())
		}
		if err := x.Fill_(1).Err(); err != nil {
			t.Fatal(err)
		}
		if v, _ := x.Sum().Item(); int(v) != x.Numel() {
			t.Errorf("sum %v after Fill_(1) of %d elements", v, x.Numel())
		}
	}
}

func TestSizeOutOfRangeIsAnError(t *testing.T) {
	x := torch.Zeros([]int{2, 3})
	if n, err := x.Size(-1); n != 3 || err != nil {
		t.Errorf("Size(-1) = %d, %v", n, err)
	}
	_, err := x.Size(5)
	if !errors.Is(err, torch.ErrIndex) || !strings.Contains(err.Error(), "Dimension out of range (expected to be in range of [-2, 1], but got 5)") {
		t.Errorf("Size(5): %v", err)
	}
	if _, err := torch.Scalar(1.0).Size(0); err == nil || !strings.Contains(err.Error(), "dimension specified as 0 but tensor has no dimensions") {
		t.Errorf("Size(0) of a 0-dim tensor: %v", err)
	}
	var nilT *torch.Tensor
	if _, err := nilT.Size(0); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("Size of nil: %v", err)
	}
}

// Accessors of a nil tensor answer zero values instead of panicking.
func TestNilTensorAccessors(t *testing.T) {
	var x *torch.Tensor
	if x.Dim() != 0 || x.Numel() != 0 || len(x.Shape()) != 0 || len(x.Stride()) != 0 || x.RequiresGrad() ||
		x.IsContiguous() || x.Version() != 0 || x.IsShared() || x.UntypedStorage() != nil || x.Grad() != nil || !x.IsLeaf() {
		t.Error("a nil tensor's accessors are not zero")
	}
	if !errors.Is(x.Err(), torch.ErrArgument) {
		t.Errorf("Err of nil: %v", x.Err())
	}
	if _, err := x.DataPtr(); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("DataPtr of nil: %v", err)
	}
}
