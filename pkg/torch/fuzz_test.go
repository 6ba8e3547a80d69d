package torch_test

import (
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// FuzzViews feeds random shapes, dims and indices to the view ops: they
// must fail with an error or give a view inside the storage, never panic.
func FuzzViews(f *testing.F) {
	f.Add(uint8(2), uint8(3), uint8(4), int8(0), int8(1), int8(-1), int8(2), uint8(0))
	f.Add(uint8(0), uint8(1), uint8(5), int8(-4), int8(3), int8(7), int8(-2), uint8(5))
	f.Fuzz(func(t *testing.T, s0, s1, s2 uint8, a, b, c, d int8, which uint8) {
		x := torch.Arange(int(s0%5)*int(s1%5)*int(s2%5), torch.WithDType(torch.Float32)).
			Reshape(int(s0%5), int(s1%5), int(s2%5))
		A, B, C, D := int(a), int(b), int(c), int(d)
		var v *torch.Tensor
		switch which % 14 {
		case 0:
			v = x.View(A, B)
		case 1:
			v = x.Reshape(A, B, C)
		case 2:
			v = x.Transpose(A, B)
		case 3:
			v = x.Permute(A, B, C)
		case 4:
			v = x.Narrow(A, B, C)
		case 5:
			v = x.Select(A, B)
		case 6:
			v = x.Slice(A, B, C, D)
		case 7:
			v = x.Expand(A, B, C, D)
		case 8:
			v = x.Unsqueeze(A).SqueezeDim(B)
		case 9:
			v = x.Flatten(A, B)
		case 10:
			v = x.Unflatten(A, B, C)
		case 11:
			v = x.AsStrided([]int{A, B}, []int{C, D}, int(which))
		case 12:
			parts, err := x.Chunk(A, B)
			if err == nil && len(parts) > 0 {
				v = parts[len(parts)-1]
			} else {
				v = x
			}
		case 13:
			parts, err := x.Split(A, B)
			if err == nil && len(parts) > 0 {
				v = parts[0]
			} else {
				v = x
			}
		}
		if v.Err() != nil {
			return
		}
		if _, err := torch.ToSlice[float32](v); err != nil {
			t.Fatalf("valid view cannot be read: %v", err)
		}
		_ = v.Contiguous().String()
	})
}
