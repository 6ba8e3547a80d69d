package torch_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Ops on 2^15 elements and more are split across the CPU worker pool; the
// sizes below give one share, several, and shares of unequal length, on
// contiguous and strided (transposed) operands. Every element is checked
// against a Go loop, so a share computed twice, skipped or misplaced shows.
func TestLargeOpsSplitAcrossThePool(t *testing.T) {
	for _, n := range []int{1<<15 - 1, 1 << 15, 3<<15 + 7, 1<<20 + 3} {
		xs, ys := make([]float32, n), make([]float32, n)
		for i := range xs {
			xs[i], ys[i] = float32(i%1000)-500, float32(i%7)+0.5
		}
		x, y := torch.FromSlice(xs), torch.FromSlice(ys)

		sum, err := torch.ToSlice[float32](x.Add(y))
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float32, n)
		for i := range want {
			want[i] = xs[i] + ys[i]
		}
		if diff := cmp.Diff(want, sum); diff != "" {
			t.Fatalf("add of %d: (-want +got)\n%s", n, diff)
		}

		wide, err := torch.ToSlice[float64](x.ToDType(torch.Float64))
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range wide {
			if v != float64(xs[i]) {
				t.Fatalf("cast of %d: element %d is %v, want %v", n, i, v, xs[i])
			}
		}

		var total, count float64
		for _, v := range xs {
			total += float64(v)
			if v != 0 {
				count++
			}
		}
		for name, got := range map[string]*torch.Tensor{"sum": x.Sum(), "mean": x.Mean(), "count_nonzero": x.CountNonzero()} {
			v, err := got.ToDType(torch.Float64).Item()
			if err != nil {
				t.Fatal(err)
			}
			w := map[string]float64{"sum": total, "mean": total / float64(n), "count_nonzero": count}[name]
			if math.Abs(v-w) > 1e-6*math.Max(1, math.Abs(w)) {
				t.Errorf("%s of %d = %v, want %v", name, n, v, w)
			}
		}
		m, err := x.Amax().Item()
		if err != nil || m != 499 {
			t.Errorf("amax of %d = %v, %v; want 499", n, m, err)
		}
	}

	// Rows reduced in parallel, and a transposed (strided) input.
	const rows, cols = 300, 1000
	vals := make([]float32, rows*cols)
	for i := range vals {
		vals[i] = float32(i%13) - 6
	}
	m := torch.FromSlice(vals, torch.WithShape(rows, cols))
	for _, tc := range []struct {
		name string
		got  *torch.Tensor
		at   func(r int) float32
	}{
		{"sum over dim 1", m.Sum(1), func(r int) float32 {
			var s float32
			for c := range cols {
				s += vals[r*cols+c]
			}
			return s
		}},
		{"transposed sum over dim 0", m.T().Sum(0), func(r int) float32 {
			var s float32
			for c := range cols {
				s += vals[r*cols+c]
			}
			return s
		}},
		{"transposed copy", m.T().Contiguous().Select(0, 0), func(r int) float32 { return vals[r*cols] }},
	} {
		got, err := torch.ToSlice[float32](tc.got)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != rows {
			t.Fatalf("%s: %d values, want %d", tc.name, len(got), rows)
		}
		for r, v := range got {
			if v != tc.at(r) {
				t.Fatalf("%s: row %d = %v, want %v", tc.name, r, v, tc.at(r))
			}
		}
	}
}

// Goroutines that run large ops at once share the pool: an op that finds
// it busy runs on its caller alone, and every result is whole.
func TestLargeOpsFromManyGoroutines(t *testing.T) {
	const n = 1<<17 + 5
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			x := torch.Full([]int{n}, float32(g))
			for range 20 {
				s, err := x.Add(x).Sum().Item()
				if err == nil && s != float64(2*g*n) {
					err = fmt.Errorf("goroutine %d: sum %v, want %v", g, s, 2*g*n)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestBroadcastRowsSplitAcrossThePool checks broadcast ops whose rows are
// run in blocks and whose shares start and end inside rows, against Go
// loops: odd row lengths, a 3-D broadcast, a column broadcast, a
// transposed input, a cast and a masked fill.
func TestBroadcastRowsSplitAcrossThePool(t *testing.T) {
	for _, shape := range [][]int{{333, 257}, {7, 129, 67}, {1 << 15, 3}, {5, 1 << 14}, {3, 1}} {
		n := 1
		for _, d := range shape {
			n *= d
		}
		inner, rows := shape[len(shape)-1], n/shape[len(shape)-1]
		xs, bs, cs := make([]float32, n), make([]float32, inner), make([]float32, rows)
		for i := range xs {
			xs[i] = float32(i%997) - 400
		}
		for i := range bs {
			bs[i] = float32(i%5) + 0.25
		}
		for i := range cs {
			cs[i] = float32(i%11) - 5
		}
		x := torch.FromSlice(xs, torch.WithShape(shape...))
		colShape := append(append([]int(nil), shape[:len(shape)-1]...), 1)
		b, c := torch.FromSlice(bs), torch.FromSlice(cs, torch.WithShape(colShape...))
		xt := x.View(rows, inner).T().Contiguous().T() // the same values, column-major
		mask := x.GtScalar(0)
		type broadcastCase struct {
			name string
			got  *torch.Tensor
			want func(i int) float32 // element i of the result
		}
		cases := []broadcastCase{
			{"row broadcast", x.Add(b), func(i int) float32 { return xs[i] + bs[i%inner] }},
			{"column broadcast", x.Mul(c), func(i int) float32 { return xs[i] * cs[i/inner] }},
			{"transposed input", xt.Sub(b), func(i int) float32 { return xs[i] - bs[i%inner] }},
			{"cast of a broadcast", b.Expand(shape...).ToDType(torch.Float64).ToDType(torch.Float32),
				func(i int) float32 { return bs[i%inner] }},
			{"masked fill", x.MaskedFill(mask, 7), func(i int) float32 {
				if xs[i] > 0 {
					return 7
				}
				return xs[i]
			}},
		}
		if len(shape) == 3 { // broadcast along the middle dim: a 3-D plan
			a, mid := shape[0], shape[1]
			ms := make([]float32, a*inner)
			for i := range ms {
				ms[i] = float32(i%13) - 6
			}
			m := torch.FromSlice(ms, torch.WithShape(a, 1, inner))
			cases = append(cases, broadcastCase{"middle broadcast", x.Add(m), func(i int) float32 { return xs[i] + ms[i/(mid*inner)*inner+i%inner] }})
		}
		for _, tc := range cases {
			got, err := torch.ToSlice[float32](tc.got)
			if err != nil {
				t.Fatalf("%s of %v: %v", tc.name, shape, err)
			}
			for i, v := range got {
				if w := tc.want(i); v != w {
					t.Fatalf("%s of %v: element %d is %v, want %v", tc.name, shape, i, v, w)
				}
			}
		}
	}
}
