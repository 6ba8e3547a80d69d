package cpu

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// TestSmallBinaryMatchesTheEngine runs add, sub, mul and div through the Go
// loops of small ops and through the C engine, on contiguous and broadcast
// single-element inputs with NaN, infinities, signed zeros and subnormals,
// and requires the same bits.
func TestSmallBinaryMatchesTheEngine(t *testing.T) {
	special := []float64{0, math.Copysign(0, -1), 1, -1, math.NaN(), math.Inf(1), math.Inf(-1), 1e-310, 3.5e38, 1e-45}
	rng := rand.New(rand.NewPCG(1, 2))
	value := func() float64 {
		if rng.IntN(3) == 0 {
			return special[rng.IntN(len(special))]
		}
		return rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10))
	}
	ops := map[string]int{"add": cpukernels.OpAdd, "sub": cpukernels.OpSub, "mul": cpukernels.OpMul, "div": cpukernels.OpDiv}
	for _, dt := range []dtype.DType{dtype.Float32, dtype.Float64} {
		for name, cop := range ops {
			for _, n := range []int{0, 1, 3, 4, 17, smallLimit} {
				for _, bcast := range []int{-1, 0, 1} { // which input is a single broadcast element
					x, y := make([]float64, n), make([]float64, n)
					for i := range x {
						x[i], y[i] = value(), value()
					}
					in := [2]kernel.Operand{operandOf(t, dt, x, n, bcast == 0), operandOf(t, dt, y, n, bcast == 1)}
					outGo, outC := operandOf(t, dt, make([]float64, n), n, false), operandOf(t, dt, make([]float64, n), n, false)

					var c kernel.Call
					c.Reset(kernel.OpAdd, device.CPUDevice, 2, 1)
					c.In[0], c.In[1], c.Out[0] = in[0], in[1], outGo
					c.Scalars[1] = kernel.FloatScalar(1)
					if !smallBinary(&c, cop, dt) {
						t.Fatalf("%s %s n=%d: the Go loop refused a small flat op", name, dt, n)
					}
					runEngine(t, cop, dt, n, outC, in)
					a, b := outGo.Mem.(*Memory).Bytes(), outC.Mem.(*Memory).Bytes()
					if string(a) != string(b) {
						t.Errorf("%s %s n=%d broadcast %d: Go and C results differ", name, dt, n, bcast)
					}
				}
			}
		}
	}
}

// TestSmallBinaryDeclines checks the cases the Go loops leave to the engine.
func TestSmallBinaryDeclines(t *testing.T) {
	x := operandOf(t, dtype.Float32, []float64{1, 2, 3, 4}, 4, false)
	for _, c := range []struct {
		name  string
		cop   int
		alpha float64
		dt    dtype.DType
		n     int
	}{
		{"alpha 2", cpukernels.OpAdd, 2, dtype.Float32, 4},
		{"other op", cpukernels.OpMaximum, 1, dtype.Float32, 4},
		{"int64", cpukernels.OpAdd, 1, dtype.Int64, 4},
		{"too large", cpukernels.OpAdd, 1, dtype.Float32, smallLimit + 1},
	} {
		var call kernel.Call
		call.Reset(kernel.OpAdd, device.CPUDevice, 2, 1)
		in := x
		if c.n != 4 {
			in = operandOf(t, dtype.Float32, make([]float64, c.n), c.n, false)
		}
		in.DType = c.dt
		call.In[0], call.In[1], call.Out[0] = in, in, in
		call.Scalars[1] = kernel.FloatScalar(c.alpha)
		if smallBinary(&call, c.cop, c.dt) {
			t.Errorf("%s: the Go loop ran", c.name)
		}
	}
}

// operandOf makes a contiguous operand of n elements holding v, or, when
// single, one element expanded to n (stride 0).
func operandOf(t *testing.T, dt dtype.DType, v []float64, n int, single bool) kernel.Operand {
	t.Helper()
	count := n
	if single {
		count = 1
	}
	m, err := Allocate(count * dt.ItemSize())
	if err != nil {
		t.Fatal(err)
	}
	for i := range min(count, len(v)) {
		p := unsafe.Add(m.HostPtr(), i*dt.ItemSize())
		if dt == dtype.Float32 {
			*(*float32)(p) = float32(v[i])
		} else {
			*(*float64)(p) = v[i]
		}
	}
	o := kernel.Operand{DType: dt, Shape: []int{n}, Strides: []int{1}}
	if single {
		o.Strides = []int{0}
	}
	o.Bind(m)
	return o
}

func runEngine(t *testing.T, cop int, dt dtype.DType, n int, out kernel.Operand, in [2]kernel.Operand) {
	t.Helper()
	if n == 0 {
		return
	}
	var a cpukernels.Attrs
	a.F[0], a.I[0] = 1, 1
	p := [cpukernels.MaxOps]unsafe.Pointer{out.Data(), in[0].Data(), in[1].Data()}
	s := [cpukernels.MaxOps]int64{int64(dt.ItemSize()), int64(in[0].Strides[0] * dt.ItemSize()), int64(in[1].Strides[0] * dt.ItemSize())}
	if err := cpukernels.Pointwise1D(cop, int(dt), n, &p, &s, &a); err != nil {
		t.Fatal(err)
	}
}

// The allocations made most often need no slack for alignment: a small
// tensor's (the owner is torch's Tensor and its storage, 216 bytes: torch's
// TestSmallTensorLayout keeps that size) and Allocate's.
func TestSmallAllocationsNeedNoSlack(t *testing.T) {
	if hostCache.enabled(1) {
		t.Skip("debug mode sends every allocation through the cache")
	}
	type tensorSized struct{ p [27]*int }
	before := kernel.UnalignedSmall()
	for i := 0; i < 100; i++ {
		for _, n := range []int{4, 64, 100, SmallMax} {
			kernel.AllocateWith[tensorSized](n)
			if _, err := Allocate(n); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := kernel.UnalignedSmall() - before; got != 0 {
		t.Errorf("%d of 800 small allocations were unaligned and made again with slack", got)
	}
}
