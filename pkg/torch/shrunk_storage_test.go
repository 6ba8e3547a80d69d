package torch_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// A storage resized smaller under a live tensor: every later use of the
// tensor is an error, on every path (dispatched ops, the small-tensor path,
// in-place writes, copies out, data_ptr), never a read or write past the
// end.
func TestOpsOnAShrunkStorageFailCleanly(t *testing.T) {
	for _, n := range []int{4, 1 << 18} { // the small-tensor path, and the dispatcher
		uses := map[string]func(x *torch.Tensor) error{
			"add":   func(x *torch.Tensor) error { return x.Add(x).Err() },
			"exp":   func(x *torch.Tensor) error { return x.Exp().Err() },
			"sum":   func(x *torch.Tensor) error { return x.Sum().Err() },
			"add_":  func(x *torch.Tensor) error { return x.AddScalar_(1).Err() },
			"copy_": func(x *torch.Tensor) error { return x.Copy_(torch.Ones([]int{n})).Err() },
			"clone": func(x *torch.Tensor) error { return x.Clone().Err() },
			"into": func(x *torch.Tensor) error {
				return torch.Into(x).Add(torch.Ones([]int{n}), torch.Ones([]int{n})).Err()
			},
			"to_slice": func(x *torch.Tensor) error { _, err := torch.ToSlice[float32](x); return err },
			"data_ptr": func(x *torch.Tensor) error { _, err := x.DataPtr(); return err },
		}
		for name, use := range uses {
			x := torch.Ones([]int{n})
			if err := x.UntypedStorage().Resize_(4); err != nil {
				t.Fatal(err)
			}
			err := use(x)
			if !errors.Is(err, torch.ErrShape) || !strings.Contains(err.Error(), "out of bounds for storage of size 4") {
				t.Errorf("%d elements, %s after the storage shrank to 4 bytes: %v", n, name, err)
			}
		}
	}
}
