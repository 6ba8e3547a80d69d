package cpu

import (
	"testing"
	"unsafe"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// The index benchmarks run the registered CPU kernels on calls built by
// hand (the meta function lays out the output, as the dispatcher would):
// run them with -cpu 1 and -cpu 2 in separate processes, since the worker
// pool takes its size from GOMAXPROCS at its first large op.

// benchTensor is a contiguous operand of shape filled by f(i).
func benchTensor(tb testing.TB, d dtype.DType, shape []int, f func(i int) float64) kernel.Operand {
	t, err := newContiguous(shape, d)
	if err != nil {
		tb.Fatal(err)
	}
	p := t.Data()
	for i := range kernel.Numel(shape) {
		q := unsafe.Add(p, i*d.ItemSize())
		if d.IsFloatingPoint() {
			storeFloat(q, d, f(i))
		} else {
			storeInt(q, d, int64(f(i)))
		}
	}
	return t
}

// runBench runs op on ins along dim, allocating the output once.
func runBench(b *testing.B, op kernel.OpID, dim int, ins ...kernel.Operand) {
	var c kernel.Call
	c.Init(op, device.CPUDevice, len(ins), 1)
	copy(c.In, ins)
	c.Dim = dim
	if err := kernel.Meta(op)(&c); err != nil {
		b.Fatal(err)
	}
	o := &c.Out[0]
	if err := bindNew(o, kernel.Numel(o.Shape)*o.DType.ItemSize()); err != nil {
		b.Fatal(err)
	}
	defer o.Mem.Release()
	f := kernel.Lookup(op, device.CPU)
	b.SetBytes(int64(kernel.Numel(o.Shape) * o.DType.ItemSize()))
	for b.Loop() {
		if err := f(&c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIndexGatherDim1(b *testing.B) {
	self := benchTensor(b, dtype.Float32, []int{4096, 1024}, func(i int) float64 { return float64(i % 251) })
	ix := benchTensor(b, dtype.Int64, []int{4096, 256}, func(i int) float64 { return float64((i * 7919) % 1024) })
	runBench(b, kernel.OpGather, 1, self, ix)
}

func BenchmarkIndexSelectDim1(b *testing.B) {
	self := benchTensor(b, dtype.Float32, []int{4096, 4096}, func(i int) float64 { return float64(i % 251) })
	ix := benchTensor(b, dtype.Int64, []int{1024}, func(i int) float64 { return float64((i * 7919) % 4096) })
	runBench(b, kernel.OpIndexSelect, 1, self, ix)
}

// Embedding is index_select along dim 0 of the table (torch.Embedding).
func BenchmarkIndexEmbedding(b *testing.B) {
	w := benchTensor(b, dtype.Float32, []int{32000, 512}, func(i int) float64 { return float64(i % 251) })
	ix := benchTensor(b, dtype.Int64, []int{4096}, func(i int) float64 { return float64((i * 7919) % 32000) })
	runBench(b, kernel.OpIndexSelect, 0, w, ix)
}

// The backward of embedding and of gather: index_add and scatter_add.
func BenchmarkIndexAddDim0(b *testing.B) {
	w := benchTensor(b, dtype.Float32, []int{32000, 512}, func(i int) float64 { return 0 })
	ix := benchTensor(b, dtype.Int64, []int{4096}, func(i int) float64 { return float64((i * 7919) % 32000) })
	src := benchTensor(b, dtype.Float32, []int{4096, 512}, func(i int) float64 { return float64(i % 13) })
	var c kernel.Call
	c.Init(kernel.OpIndexAdd, device.CPUDevice, 3, 1)
	c.In[0], c.In[1], c.In[2] = w, ix, src
	c.Scalars[0] = kernel.IntScalar(1)
	if err := kernel.Meta(kernel.OpIndexAdd)(&c); err != nil {
		b.Fatal(err)
	}
	c.Out[0] = w // in place, as Embedding's backward accumulates
	f := kernel.Lookup(kernel.OpIndexAdd, device.CPU)
	for b.Loop() {
		if err := f(&c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIndexScatterAddDim1(b *testing.B) {
	self := benchTensor(b, dtype.Float32, []int{4096, 1024}, func(i int) float64 { return 0 })
	ix := benchTensor(b, dtype.Int64, []int{4096, 256}, func(i int) float64 { return float64((i * 7919) % 1024) })
	src := benchTensor(b, dtype.Float32, []int{4096, 256}, func(i int) float64 { return float64(i % 13) })
	var c kernel.Call
	c.Init(kernel.OpScatterAdd, device.CPUDevice, 3, 1)
	c.In[0], c.In[1], c.In[2] = self, ix, src
	c.Dim = 1
	if err := kernel.Meta(kernel.OpScatterAdd)(&c); err != nil {
		b.Fatal(err)
	}
	c.Out[0] = self // in place
	f := kernel.Lookup(kernel.OpScatterAdd, device.CPU)
	for b.Loop() {
		if err := f(&c); err != nil {
			b.Fatal(err)
		}
	}
}
