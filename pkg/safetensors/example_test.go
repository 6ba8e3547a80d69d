package safetensors_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mindtorch/mindtorch/pkg/safetensors"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Saving tensors and opening the file again: the tensors view the mapped
// file instead of being read into memory.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "weights.safetensors")
	w := torch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, torch.WithShape(2, 3))
	if err := safetensors.Save(path, map[string]*torch.Tensor{"w": w}, map[string]string{"format": "pt"}); err != nil {
		fmt.Println(err)
		return
	}
	f, err := safetensors.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	t, _ := f.Tensor("w")
	fmt.Println(f.Keys(), f.Metadata()["format"], t.Shape(), t.UntypedStorage().Filename() == path)
	// Output: [w] pt [2 3] true
}
