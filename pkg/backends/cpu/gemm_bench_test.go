package cpu

import (
	"testing"
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// BenchmarkSgemmDirect calls OpenBLAS's sgemm with nothing around it but
// the rescheduling every Go loop of cgo calls needs (resched.go): the
// yardstick of torch's Matmul1024 benchmark.
func BenchmarkSgemmDirect1024(b *testing.B) {
	if !useOpenBLAS() {
		b.Skip("OpenBLAS not loaded: " + BLAS().Detail)
	}
	const n = 1024
	a, x, c := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for i := range a {
		a[i], x[i] = float32(i%7), float32(i%5)
	}
	start := b.Elapsed()
	for b.Loop() {
		resched()
		err := cpukernels.Gemm(int(dtype.Float32), false, false, n, n, n, 1, unsafe.Pointer(&a[0]), n, 0,
			unsafe.Pointer(&x[0]), n, 0, 0, unsafe.Pointer(&c[0]), n, 0, 1)
		if err != nil {
			b.Fatal(err)
		}
	}
	secs := (b.Elapsed() - start).Seconds() / float64(b.N)
	b.ReportMetric(2*float64(n*n*n)/secs/1e9, "GFLOP/s")
}
