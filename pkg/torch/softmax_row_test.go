package torch_test

import (
	"math"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestSoftmaxRowBits checks float32 softmax along a contiguous row against
// its definition in the kernel's arithmetic: e = exp(x - max) as the exp op
// computes it (the same loop), s their float64 sum in eight interleaved
// partial sums then the tail, and e * float32(1/s), for rows shorter and
// longer than a vector, with -Inf entries.
func TestSoftmaxRowBits(t *testing.T) {
	for _, n := range []int{1, 5, 16, 17, 100, 1000, 4099} {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(math.Sin(float64(i)*0.7)) * 30
			if i%11 == 3 {
				v[i] = float32(math.Inf(-1))
			}
		}
		if n > 1 {
			v[n/2] = 40 // a finite maximum
		}
		x := torch.FromSlice(v)
		got, err := torch.ToSlice[float32](x.Softmax(-1))
		if err != nil {
			t.Fatal(err)
		}
		m := float32(math.Inf(-1))
		for _, f := range v {
			m = max(m, f)
		}
		e, err := torch.ToSlice[float32](x.SubScalar(float64(m)).Exp())
		if err != nil {
			t.Fatal(err)
		}
		var p [8]float64
		k := 0
		for ; k+8 <= n; k += 8 {
			for q := range 8 {
				p[q] += float64(e[k+q])
			}
		}
		s := 0.0
		for ; k < n; k++ {
			s += float64(e[k])
		}
		for q := range 8 {
			s += p[q]
		}
		inv := float32(1 / s)
		for i := range v {
			if want := e[i] * inv; math.Float32bits(got[i]) != math.Float32bits(want) {
				t.Fatalf("n=%d: softmax[%d] = %g, want %g", n, i, got[i], want)
			}
		}
	}
}
