package torch_test

import (
	"fmt"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The benchmarks of single kernels that PyTorch's twins in
// scripts/bench_torch.py time too: extremes, topk, sort, GELU, gather and
// index_select. Each result is released at once, as PyTorch frees a
// result nobody holds.

// seeded is a generator option, so that every run times the same data.
func seeded() torch.Option { return torch.WithGenerator(torch.NewGenerator(0)) }

func BenchmarkAmax16M(b *testing.B) {
	x := torch.Randn([]int{16 << 20}, seeded())
	for b.Loop() {
		x.Amax().Release()
	}
}

// BenchmarkAmaxRows1024 reduces each row of a 1024x1024 matrix.
func BenchmarkAmaxRows1024(b *testing.B) {
	x := torch.Randn([]int{1024, 1024}, seeded())
	for b.Loop() {
		x.Amax(1).Release()
	}
}

// BenchmarkMaxDimRows1024 is max(dim=1): values and indices per row.
func BenchmarkMaxDimRows1024(b *testing.B) {
	x := torch.Randn([]int{1024, 1024}, seeded())
	for b.Loop() {
		v, i := x.MaxDim(1, false)
		v.Release()
		i.Release()
	}
}

// BenchmarkMaxDimCols1024 is max(dim=0): values and indices per column.
func BenchmarkMaxDimCols1024(b *testing.B) {
	x := torch.Randn([]int{1024, 1024}, seeded())
	for b.Loop() {
		v, i := x.MaxDim(0, false)
		v.Release()
		i.Release()
	}
}

// BenchmarkTopk1e6 is the 10 largest of a million floats.
func BenchmarkTopk1e6(b *testing.B) {
	x := torch.Randn([]int{1_000_000}, seeded())
	for b.Loop() {
		v, i := x.Topk(10, 0, true)
		v.Release()
		i.Release()
	}
}

// BenchmarkTopkRows is the 10 largest of each row of 256x4096.
func BenchmarkTopkRows(b *testing.B) {
	x := torch.Randn([]int{256, 4096}, seeded())
	for b.Loop() {
		v, i := x.Topk(10, 1, true)
		v.Release()
		i.Release()
	}
}

// BenchmarkSort1e6 sorts a million floats: stable and PyTorch's default
// unstable sort; a million int64 values, stable.
func BenchmarkSort1e6(b *testing.B) {
	x := torch.Randn([]int{1_000_000}, seeded())
	xi := torch.Randint(0, 1<<40, []int{1_000_000}, seeded())
	for _, c := range []struct {
		name   string
		x      *torch.Tensor
		stable bool
	}{{"stable", x, true}, {"unstable", x, false}, {"int64", xi, true}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				v, i := c.x.SortStable(0, false, c.stable)
				v.Release()
				i.Release()
			}
		})
	}
}

// BenchmarkGelu is the exact GELU at four sizes, forward, and forward
// and backward at 1e6.
func BenchmarkGelu(b *testing.B) {
	for _, n := range []int{1000, 100_000, 1_000_000, 16_000_000} {
		x := torch.Randn([]int{n}, seeded())
		b.Run(fmt.Sprintf("%.0e", float64(n)), func(b *testing.B) {
			for b.Loop() {
				x.Gelu().Release()
			}
		})
		x.Release()
	}
}

// BenchmarkGeluBackward is the gradient of the exact GELU of 1e6 floats.
func BenchmarkGeluBackward(b *testing.B) {
	x := torch.Randn([]int{1_000_000}, seeded()).RequiresGrad_(true)
	y := x.Gelu()
	g := torch.OnesLike(y)
	for b.Loop() {
		gx, err := torch.Grad([]*torch.Tensor{y}, []*torch.Tensor{x},
			torch.GradOptions{GradOutputs: []*torch.Tensor{g}, RetainGraph: true})
		if err != nil {
			b.Fatal(err)
		}
		gx[0].Release()
	}
}

// BenchmarkGatherDim1 gathers 256 of 1024 columns in each of 4096 rows.
func BenchmarkGatherDim1(b *testing.B) {
	x := torch.Randn([]int{4096, 1024}, seeded())
	idx := torch.Randint(0, 1024, []int{4096, 256}, seeded())
	for b.Loop() {
		x.Gather(1, idx).Release()
	}
}

// BenchmarkIndexSelectDim1 selects 1024 of the 4096 columns of 4096 rows.
func BenchmarkIndexSelectDim1(b *testing.B) {
	x := torch.Randn([]int{4096, 4096}, seeded())
	idx := torch.Randint(0, 4096, []int{1024}, seeded())
	for b.Loop() {
		x.IndexSelect(1, idx).Release()
	}
}
