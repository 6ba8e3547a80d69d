package npu

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// The norm kernels on FLOAT16 and BFLOAT16, which pkg/torch's fused norms
// (float32 and float64 only, as their CPU kernel) never hand them: called
// directly, they give the float64 formulas' values to the dtype's
// precision (the ops compute in FLOAT), and decline BFLOAT16 on an Atlas
// training SoC.

// normOperand is a contiguous operand of dtype d and shape on npu:0 holding
// vals rounded to d; it returns the rounded values too.
func normOperand(t *testing.T, d dtype.DType, shape []int, vals []float64) (kernel.Operand, []float64) {
	t.Helper()
	n := kernel.Numel(shape)
	buf := make([]byte, max(n, 1)*d.ItemSize())
	exact := make([]float64, n)
	for i := range n {
		v := float32(0)
		if vals != nil {
			v = float32(vals[i])
		}
		switch d {
		case dtype.Float16:
			h := dtype.F16FromFloat32(v)
			binary.LittleEndian.PutUint16(buf[2*i:], uint16(h))
			exact[i] = float64(h.Float32())
		case dtype.BFloat16:
			h := dtype.BF16FromFloat32(v)
			binary.LittleEndian.PutUint16(buf[2*i:], uint16(h))
			exact[i] = float64(h.Float32())
		default:
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(v))
			exact[i] = float64(v)
		}
	}
	m, err := Allocate(0, len(buf))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WriteHost(0, buf); err != nil {
		t.Fatal(err)
	}
	return kernel.Operand{Mem: m, DType: d, Shape: shape, Strides: kernel.ContiguousStrides(shape, make([]int, len(shape)))}, exact
}

// normValues reads the contiguous operand o back.
func normValues(t *testing.T, o *kernel.Operand) []float64 {
	t.Helper()
	n := kernel.Numel(o.Shape)
	buf := make([]byte, n*o.DType.ItemSize())
	if err := o.Mem.(*Memory).ReadHost(buf, 0); err != nil {
		t.Fatal(err)
	}
	out := make([]float64, n)
	for i := range out {
		switch o.DType {
		case dtype.Float16:
			out[i] = float64(dtype.F16(binary.LittleEndian.Uint16(buf[2*i:])).Float32())
		case dtype.BFloat16:
			out[i] = float64(dtype.BF16(binary.LittleEndian.Uint16(buf[2*i:])).Float32())
		default:
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:])))
		}
	}
	return out
}

// refNorm normalises the rows of d elements of x in float64; element k of
// row r has weight w[ch(r, k)] and bias b[ch(r, k)]. It returns the output,
// the mean and rstd per row.
func refNorm(x []float64, d int, ch func(r, k int) int, w, b []float64, eps float64) (y, mean, rstd []float64) {
	rows := len(x) / d
	y, mean, rstd = make([]float64, len(x)), make([]float64, rows), make([]float64, rows)
	for r := range rows {
		row := x[r*d : (r+1)*d]
		for _, v := range row {
			mean[r] += v / float64(d)
		}
		q := 0.0
		for _, v := range row {
			q += (v - mean[r]) * (v - mean[r])
		}
		rstd[r] = 1 / math.Sqrt(q/float64(d)+eps)
		for k, v := range row {
			y[r*d+k] = (v-mean[r])*rstd[r]*w[ch(r, k)] + b[ch(r, k)]
		}
	}
	return y, mean, rstd
}

// refNormGrad is the gradient of refNorm's output (weights as there, nw of
// them) with respect to x, the weight and the bias, for the output's
// gradient g and the mean and rstd given.
func refNormGrad(g, x []float64, d int, ch func(r, k int) int, nw int, w, mean, rstd []float64) (gx, gw, gb []float64) {
	gx, gw, gb = make([]float64, len(x)), make([]float64, nw), make([]float64, nw)
	for r := range len(x) / d {
		s1, s2 := 0.0, 0.0
		for k := range d {
			i, c := r*d+k, ch(r, k)
			xh := (x[i] - mean[r]) * rstd[r]
			s1 += g[i] * w[c]
			s2 += g[i] * w[c] * xh
			gw[c] += g[i] * xh
			gb[c] += g[i]
		}
		for k := range d {
			i, c := r*d+k, ch(r, k)
			xh := (x[i] - mean[r]) * rstd[r]
			gx[i] = rstd[r] * (g[i]*w[c] - s1/float64(d) - xh*s2/float64(d))
		}
	}
	return gx, gw, gb
}

// normClose compares got with want within rtol of want's largest magnitude.
func normClose(t *testing.T, what string, got, want []float64, rtol float64) {
	t.Helper()
	scale := 0.0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > rtol*(1+scale) {
			t.Errorf("%s: [%d] = %v, want %v", what, i, got[i], want[i])
			return
		}
	}
}

// runNormKernel runs kernel k as op over in and out, with Ints[0] ints and
// eps 1e-5, and waits for the device.
func runNormKernel(t *testing.T, k kernel.KernelFunc, op kernel.OpID, ints int, in, out []kernel.Operand) error {
	t.Helper()
	c := kernel.Call{Op: op, Device: device.NPUDevice(0), In: in, Out: out, Ints: []int{ints}}
	c.Scalars[0] = kernel.FloatScalar(1e-5)
	if err := k(&c); err != nil {
		return err
	}
	return Synchronize(0)
}

func randValues(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return v
}

// TestNormKernelsOnHalfTypes calls the four kernels on float32, float16
// and bfloat16 operands (float16 and bfloat16 within 4e-3 and 3e-2 of the
// largest value, the dtypes' precision over a few roundings).
func TestNormKernelsOnHalfTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []dtype.DType{dtype.Float32, dtype.Float16, dtype.BFloat16} {
		tol := map[dtype.DType]float64{dtype.Float32: 1e-5, dtype.Float16: 4e-3, dtype.BFloat16: 3e-2}[d]
		var ops []kernel.Operand
		op := func(shape []int, vals []float64) (kernel.Operand, []float64) {
			o, v := normOperand(t, d, shape, vals)
			ops = append(ops, o)
			return o, v
		}
		// layer norm over the last two dims of [3, 2, 4]
		x, xv := op([]int{3, 2, 4}, randValues(r, 24))
		w, wv := op([]int{2, 4}, randValues(r, 8))
		b, bv := op([]int{2, 4}, randValues(r, 8))
		y, _ := op([]int{3, 2, 4}, nil)
		mean, _ := op([]int{3, 1, 1}, nil)
		rstd, _ := op([]int{3, 1, 1}, nil)
		if err := runNormKernel(t, layerNormKernel, kernel.OpLayerNorm, 2, []kernel.Operand{x, w, b}, []kernel.Operand{y, mean, rstd}); err != nil {
			t.Fatalf("%s layer norm: %v", d.Name(), err)
		}
		elem := func(_, k int) int { return k }
		wy, wm, wr := refNorm(xv, 8, elem, wv, bv, 1e-5)
		normClose(t, d.Name()+" layer norm output", normValues(t, &y), wy, tol)
		normClose(t, d.Name()+" layer norm mean", normValues(t, &mean), wm, tol)
		normClose(t, d.Name()+" layer norm rstd", normValues(t, &rstd), wr, tol)
		g, gv := op([]int{3, 2, 4}, randValues(r, 24))
		gx, _ := op([]int{3, 2, 4}, nil)
		gw, _ := op([]int{2, 4}, nil)
		gb, _ := op([]int{2, 4}, nil)
		mv, rv := normValues(t, &mean), normValues(t, &rstd)
		err := runNormKernel(t, layerNormBackwardKernel, kernel.OpLayerNormBackward, 2, []kernel.Operand{g, x, mean, rstd, w},
			[]kernel.Operand{gx, gw, gb})
		if err != nil {
			t.Fatalf("%s layer norm backward: %v", d.Name(), err)
		}
		wgx, wgw, wgb := refNormGrad(gv, xv, 8, elem, 8, wv, mv, rv)
		normClose(t, d.Name()+" layer norm input's gradient", normValues(t, &gx), wgx, tol)
		normClose(t, d.Name()+" layer norm weight's gradient", normValues(t, &gw), wgw, tol)
		normClose(t, d.Name()+" layer norm bias's gradient", normValues(t, &gb), wgb, tol)

		// group norm of [2, 6, 3] in 3 groups
		x, xv = op([]int{2, 6, 3}, randValues(r, 36))
		w, wv = op([]int{6}, randValues(r, 6))
		b, bv = op([]int{6}, randValues(r, 6))
		y, _ = op([]int{2, 6, 3}, nil)
		mean, _ = op([]int{2, 3}, nil)
		rstd, _ = op([]int{2, 3}, nil)
		if err := runNormKernel(t, groupNormKernel, kernel.OpGroupNorm, 3, []kernel.Operand{x, w, b}, []kernel.Operand{y, mean, rstd}); err != nil {
			t.Fatalf("%s group norm: %v", d.Name(), err)
		}
		// a row is a group of 2 channels of 3 elements
		channel := func(r, k int) int { return r%3*2 + k/3 }
		wy, wm, wr = refNorm(xv, 6, channel, wv, bv, 1e-5)
		normClose(t, d.Name()+" group norm output", normValues(t, &y), wy, tol)
		normClose(t, d.Name()+" group norm mean", normValues(t, &mean), wm, tol)
		normClose(t, d.Name()+" group norm rstd", normValues(t, &rstd), wr, tol)
		g, gv = op([]int{2, 6, 3}, randValues(r, 36))
		gx, _ = op([]int{2, 6, 3}, nil)
		gw, _ = op([]int{6}, nil)
		gb, _ = op([]int{6}, nil)
		mv, rv = normValues(t, &mean), normValues(t, &rstd)
		err = runNormKernel(t, groupNormBackwardKernel, kernel.OpGroupNormBackward, 3, []kernel.Operand{g, x, mean, rstd, w},
			[]kernel.Operand{gx, gw, gb})
		if err != nil {
			t.Fatalf("%s group norm backward: %v", d.Name(), err)
		}
		wgx, wgw, wgb = refNormGrad(gv, xv, 6, channel, 6, wv, mv, rv)
		normClose(t, d.Name()+" group norm input's gradient", normValues(t, &gx), wgx, tol)
		normClose(t, d.Name()+" group norm gamma's gradient", normValues(t, &gw), wgw, tol)
		normClose(t, d.Name()+" group norm beta's gradient", normValues(t, &gb), wgb, tol)

		// bfloat16 declines on an Atlas training SoC, before any launch
		if d == dtype.BFloat16 {
			saved := state.soc
			state.soc = "Ascend910A"
			err = runNormKernel(t, groupNormKernel, kernel.OpGroupNorm, 3, []kernel.Operand{x, w, b}, []kernel.Operand{y, mean, rstd})
			if !errors.Is(err, kernel.ErrNotImplemented) {
				t.Errorf("bfloat16 group norm on Ascend910A: %v, want ErrNotImplemented", err)
			}
			state.soc = saved
		}
		for _, o := range ops {
			o.Mem.Release()
		}
	}
}
