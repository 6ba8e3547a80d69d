package cpu

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// linspaceValues stores the n values of linspace(start, end) in dtype d,
// value i by store(i, v), as PyTorch's CPU kernel computes them on one
// thread (aten/src/ATen/native/cpu/RangeFactoriesKernel.cpp,
// linspace_kernel) in its x86 build, whose kernels are compiled for AVX2
// with fused multiply-adds (past 32768 steps PyTorch's threads each restart
// the vectors at their own first index, so its values depend on its thread
// count):
//   - start and end are converted to d first, and the step is
//     (end - start) / (n - 1) in d's arithmetic (double for integer dtypes);
//   - the output goes in chunks of two vectors (Vectorized<T>::size()
//     elements each): a vector's first element is start + step*idx, or
//     end - step*(n-1-idx) when the vector begins in the second half, and
//     its element k adds k*step to that (Vectorized::arange); the elements
//     past the last whole chunk are computed one by one the same way.
//
// The roundings of each dtype's arithmetic are linspaceArith's.
func linspaceValues(start, end float64, n int, d dtype.DType, store func(i int, v float64)) {
	a := linspaceArithOf(d)
	start, end = a.conv(start), a.conv(end)
	if n == 1 {
		store(0, start)
		return
	}
	step := a.div(a.sub(end, start), a.index(float64(n-1)))
	half := n / 2
	// first is element i on its own: start + step*i or end - step*(n-1-i).
	first := func(i int) float64 {
		if i < half {
			return a.out(a.mulAdd(step, a.index(float64(i)), start))
		}
		return a.out(a.mulAdd(-step, a.index(float64(n-1-i)), end))
	}
	// vector writes the Vectorized<T>::size() elements from i.
	vector := func(i int) {
		base := first(i)
		store(i, base)
		for k := 1; k < a.vector; k++ {
			store(i+k, a.out(a.add(base, a.scale(k, step))))
		}
	}
	i := 0
	for ; i+2*a.vector <= n; i += 2 * a.vector {
		vector(i)
		vector(i + a.vector)
	}
	for ; i < n; i++ {
		store(i, first(i))
	}
}

// linspaceArith is the arithmetic of one dtype in linspace_kernel.
type linspaceArith struct {
	vector int                   // Vectorized<T>::size() in the AVX2 build
	conv   func(float64) float64 // start or end converted to the dtype
	index  func(float64) float64 // an index or count converted to the step's type
	out    func(float64) float64 // a computed value as the output stores it
	sub    func(a, b float64) float64
	div    func(a, b float64) float64
	add    func(a, b float64) float64
	// mulAdd is a*b + c, fused where the compiler contracts it
	mulAdd func(a, b, c float64) float64
	// scale is k*step in arange
	scale func(k int, step float64) float64
}

func linspaceArithOf(d dtype.DType) linspaceArith {
	switch d {
	case dtype.Float32:
		f := func(v float64) float64 { return float64(float32(v)) }
		return linspaceArith{vector: 8, conv: f, index: f, out: f,
			sub:    func(a, b float64) float64 { return f(a - b) },
			div:    func(a, b float64) float64 { return f(a / b) },
			add:    func(a, b float64) float64 { return f(a + b) },
			mulAdd: func(a, b, c float64) float64 { return float64(fmaFloat32(float32(a), float32(b), float32(c))) },
			scale:  func(k int, step float64) float64 { return f(float64(k) * step) }}
	case dtype.Float64:
		id := func(v float64) float64 { return v }
		return linspaceArith{vector: 4, conv: id, index: id, out: id,
			sub:    func(a, b float64) float64 { return a - b },
			div:    func(a, b float64) float64 { return a / b },
			add:    func(a, b float64) float64 { return a + b },
			mulAdd: math.FMA,
			scale:  func(k int, step float64) float64 { return float64(k) * step }}
	case dtype.Float16, dtype.BFloat16:
		// c10::Half and c10::BFloat16 compute each operation in float and
		// round its result to the dtype: no contraction across the rounding.
		r := func(v float64) float64 { return roundTo(v, d) }
		return linspaceArith{vector: 16, conv: r, index: r, out: r,
			sub: func(a, b float64) float64 { return r(float64(float32(a) - float32(b))) },
			div: func(a, b float64) float64 { return r(float64(float32(a) / float32(b))) },
			add: func(a, b float64) float64 { return r(float64(float32(a) + float32(b))) },
			mulAdd: func(a, b, c float64) float64 {
				return r(float64(float32(c) + float32(r(float64(float32(a)*float32(b))))))
			},
			scale: func(k int, step float64) float64 { return r(float64(float32(r(float64(k))) * float32(step))) }}
	}
	// The integer dtypes: start and end truncated to the dtype (the meta
	// function refuses those out of its range), the step a double, each
	// value truncated when it is stored.
	return linspaceArith{vector: 32 / d.ItemSize(), conv: math.Trunc, index: func(v float64) float64 { return v }, out: math.Trunc,
		sub:    func(a, b float64) float64 { return a - b },
		div:    func(a, b float64) float64 { return a / b },
		add:    func(a, b float64) float64 { return a + b },
		mulAdd: math.FMA,
		scale:  func(k int, step float64) float64 { return float64(k) * step }}
}
