package torch_test

import (
	"sync"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestConcurrentOps runs ops from many goroutines on shared inputs (read
// only) and on their own outputs; run under -race by make test.
func TestConcurrentOps(t *testing.T) {
	x := torch.Randn([]int{64, 1000})
	y := torch.Randn([]int{1000})
	want, _ := torch.ToSlice[float32](x.Add(y).Relu())
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				got, err := torch.ToSlice[float32](x.Add(y).Relu())
				if err != nil || len(got) != len(want) || got[123] != want[123] {
					t.Errorf("concurrent result differs: %v", err)
					return
				}
				z := torch.Zeros([]int{64, 1000})
				z.Add_(x).MulScalar_(2)
				_ = torch.Rand([]int{10})
			}
		}()
	}
	wg.Wait()
}
