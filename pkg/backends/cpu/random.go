package cpu

import (
	"math"
	"runtime"
	"slices"
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.Register(kernel.OpUniform, device.CPU, uniformKernel)
	kernel.Register(kernel.OpNormal, device.CPU, normalKernel)
	kernel.Register(kernel.OpRandomFromTo, device.CPU, randomFromToKernel)
	kernel.Register(kernel.OpBernoulliScalar, device.CPU, bernoulliScalarKernel)
	kernel.Register(kernel.OpBernoulliTensor, device.CPU, bernoulliTensorKernel)
}

// mantissaDigits is std::numeric_limits<T>::digits of the floating dtypes.
func mantissaDigits(d dtype.DType) uint {
	switch d {
	case dtype.Float64:
		return 53
	case dtype.Float16:
		return 11
	case dtype.BFloat16:
		return 8
	}
	return 24
}

// uniform draws one value in [from, to) as PyTorch's
// uniform_real_distribution<T>: 64 random bits for double, else 32, masked to
// the mantissa's digits, scaled in double.
func uniform(r kernel.Random, d dtype.DType, from, to float64) float64 {
	digits := mantissaDigits(d)
	var v uint64
	if d == dtype.Float64 {
		v = r.Uint64()
	} else {
		v = uint64(r.Uint32())
	}
	x := float64(v&(1<<digits-1)) / float64(uint64(1)<<digits)
	return x*(to-from) + from
}

// roundTo is v rounded to dtype d (how PyTorch casts its from and to).
func roundTo(v float64, d dtype.DType) float64 {
	switch d {
	case dtype.Float32:
		return float64(float32(v))
	case dtype.Float16:
		return float64(dtype.F16FromFloat32(float32(v)).Float32())
	case dtype.BFloat16:
		return float64(dtype.BF16FromFloat32(float32(v)).Float32())
	}
	return v
}

// uniformKernel is uniform_: a draw per element, in memory order (as
// TensorIterator walks the tensor; for a transposed tensor, the storage's).
func uniformKernel(c *kernel.Call) error {
	o := &c.Out[0]
	from, to := roundTo(c.Scalars[0].Float(), o.DType), roundTo(c.Scalars[1].Float(), o.DType)
	r := c.Random
	r.Lock()
	defer r.Unlock()
	forEachInMemoryOrder(o, func(p unsafe.Pointer) { storeFloat(p, o.DType, uniform(r, o.DType, from, to)) })
	return nil
}

// normalKernel is PyTorch's normal_ on the CPU (normal_kernel in
// aten/src/ATen/native/cpu/DistributionTemplates.h): a contiguous tensor of
// at least 16 elements is filled with uniforms that Box-Muller turns into
// normals 16 at a time (normal_fill); any other tensor gets its elements,
// in memory order, from normal_distribution<double>.
func normalKernel(c *kernel.Call) error {
	o := &c.Out[0]
	mean, std := c.Scalars[0].Float(), c.Scalars[1].Float() // std >= 0: normalMeta
	r := c.Random
	r.Lock()
	defer r.Unlock()
	n := kernel.Numel(o.Shape)
	if n < 16 || !kernel.IsContiguous(o.Shape, o.Strides) {
		v, err := normalDoubles(r, n, mean, std)
		if err != nil {
			return err
		}
		i := 0
		forEachInMemoryOrder(o, func(p unsafe.Pointer) {
			storeFloat(p, o.DType, v[i])
			i++
		})
		return nil
	}
	switch o.DType {
	case dtype.Float32:
		normalFillFloat32(unsafe.Slice((*float32)(o.Data()), n), r, float32(mean), float32(std))
		return nil
	case dtype.Float64:
		return normalFill(unsafe.Slice((*float64)(o.Data()), n), r, 53, func(d []float64) error {
			return boxMullerFloat64(d, mean, std)
		})
	}
	d := make([]float32, n)
	err := normalFill(d, r, mantissaDigits(o.DType), func(d []float32) error { return boxMuller16Bit(d, o.DType, mean, std) })
	if err != nil {
		return err
	}
	size, base := o.DType.ItemSize(), o.Data()
	for i, v := range d {
		storeFloat(unsafe.Add(base, i*size), o.DType, float64(v))
	}
	return nil
}

// normalFill is normal_fill: d filled with uniforms of the given
// precision (uniformFill), then turned into normals by transform, which
// works on blocks of 16; when len(d) (at least 16) is not a multiple of 16,
// the last 16 are drawn again and transformed again.
func normalFill[T float32 | float64](d []T, r kernel.Random, digits uint, transform func([]T) error) error {
	uniformFill(d, r, digits)
	if err := transform(d[:len(d)&^15]); err != nil {
		return err
	}
	if len(d)%16 == 0 {
		return nil
	}
	tail := d[len(d)-16:]
	uniformFill(tail, r, digits)
	return transform(tail)
}

// uniformFill fills d with uniform_real_distribution(0, 1) draws of a type
// with the given mantissa digits, as uniform: 64 random bits for double
// (53 digits), else 32, masked to the digits.
func uniformFill[T float32 | float64](d []T, r kernel.Random, digits uint) {
	g, _ := r.(*Generator) // a direct call per draw when it is ours
	if f, ok := any(d).([]float32); ok && g != nil && digits <= 24 {
		g.fillUniform32(f, digits)
		return
	}
	mask, scale := uint64(1)<<digits-1, 1/float64(uint64(1)<<digits)
	for i := range d {
		var v uint64
		switch {
		case g != nil && digits == 53:
			v = g.Uint64()
		case g != nil:
			v = uint64(g.Uint32())
		case digits == 53:
			v = r.Uint64()
		default:
			v = uint64(r.Uint32())
		}
		d[i] = T(float64(v&mask) * scale)
	}
}

// fillUniform32 is uniformFill of float32 values with at most 24 digits
// from g: Uint32's draws, taken from the state a run at a time with its
// tempering inlined (a call per draw cost more than the Box-Muller
// transform in C). v masked to the digits and scaled by 2^-digits is exact
// in float32, as it is in float64.
func (g *Generator) fillUniform32(d []float32, digits uint) {
	mask, scale := uint32(1)<<digits-1, float32(1/float64(uint64(1)<<digits))
	for len(d) > 0 {
		if g.next >= len(g.state) {
			g.twist()
		}
		s := g.state[g.next:min(len(g.state), g.next+len(d))]
		out := d[:len(s)]
		for i, y := range s {
			y ^= y >> 11 // Uint32's tempering
			y ^= y << 7 & 0x9d2c5680
			y ^= y << 15 & 0xefc60000
			y ^= y >> 18
			out[i] = float32(y&mask) * scale
		}
		g.next += len(s)
		d = d[len(s):]
	}
}

// normalFillFloat32 is normal_fill_AVX2, which PyTorch runs for float32 on
// every x86 CPU with AVX2 (normal_stub has no AVX-512 kernel, so AVX-512
// CPUs run it too): normal_fill with normalFill16Float32 as the transform.
// (PyTorch's kernel for CPUs without AVX2, or with ATEN_CPU_CAPABILITY=
// default, calls logf, cosf and sinf instead and differs in the last bits.)
// All the uniforms are drawn first, in normal_fill's order: len(d) (at
// least 16) of them, then, when len(d) is not a multiple of 16, the 16 that
// replace the last 16 (into tail); boxMullerFloat32 then transforms them.
func normalFillFloat32(d []float32, r kernel.Random, mean, std float32) {
	uniformFill(d, r, 24)
	var tail *[16]float32
	if len(d)%16 != 0 {
		tail = new([16]float32)
		uniformFill(tail[:], r, 24)
	}
	boxMullerFloat32(d, tail, mean, std)
}

// boxMullerFloat32 is the transform of normal_fill_AVX2 on uniforms drawn
// as normalFillFloat32 draws them: d's blocks of 16, then, if tail is not
// nil, tail's 16 values written over the last 16 of d and transformed
// again. It runs in C (cgo/cpukernels/normal.c: AVX2 and FMA intrinsics,
// one call for the whole fill) on CPUs that have both, and in Go
// (boxMullerFloat32Go, which emulates the same lanes) elsewhere; the two
// agree bit for bit (normal_test.go).
func boxMullerFloat32(d []float32, tail *[16]float32, mean, std float32) {
	if len(d) >= 16 && cpukernels.NormalAVX2() && boxMullerFloat32C(d, tail, mean, std) == nil {
		return
	}
	boxMullerFloat32Go(d, tail, mean, std)
}

// boxMullerFloat32C is boxMullerFloat32 in C (cpukernels.ErrISA on a CPU
// without AVX2 and FMA, with d unchanged). d is pinned while C writes it
// (a no-op for memory outside Go's heap, such as the CPU cache's).
func boxMullerFloat32C(d []float32, tail *[16]float32, mean, std float32) error {
	if len(d) < 16 {
		return cpukernels.ErrUnsupported
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(&d[0])
	err := cpukernels.NormalFillFloat32(unsafe.Pointer(&d[0]), len(d), tail, mean, std)
	runtime.KeepAlive(d)
	return err
}

// boxMullerFloat32Go is boxMullerFloat32 in Go, lane by lane.
func boxMullerFloat32Go(d []float32, tail *[16]float32, mean, std float32) {
	for i := 0; i+16 <= len(d); i += 16 {
		normalFill16Float32((*[16]float32)(d[i:]), mean, std)
	}
	if tail != nil && len(d) >= 16 {
		last := (*[16]float32)(d[len(d)-16:])
		*last = *tail
		normalFill16Float32(last, mean, std)
	}
}

// twoPiFloat32 is _mm256_set1_ps(2.0f * c10::pi<double>).
const twoPiFloat32 = float32(2 * math.Pi)

// normalFill16Float32 is normal_fill_16_AVX2: with u1 = 1 - d[j] and
// u2 = d[j+8], d[j] = sqrt(-2 log u1) cos(2 pi u2) * std + mean and d[j+8]
// the same with sin, in float arithmetic with avx_mathfun.h's log256_ps and
// sincos256_ps, the last step a fused multiply-add.
func normalFill16Float32(d *[16]float32, mean, std float32) {
	var u1, theta lanes
	for j := range 8 {
		u1[j], theta[j] = 1-d[j], twoPiFloat32*d[j+8]
	}
	lg := log8(&u1)
	sin, cos := sinCos8(&theta)
	for j := range 8 {
		radius := float32(math.Sqrt(float64(-2 * lg[j])))
		d[j] = fmaFloat32(radius*cos[j], std, mean)
		d[j+8] = fmaFloat32(radius*sin[j], std, mean)
	}
}

// boxMullerFloat64 is normal_fill_16<double> on the blocks of 16 of d:
// with u1 = 1 - d[j] and u2 = d[j+8], d[j] = sqrt(-2 log u1) cos(2 pi u2)
// * std + mean and d[j+8] the same with sin, the last step fused (GCC
// contracts it in PyTorch's build). log, cos and sin are the C library's,
// so it runs in C (normal.c), one call for all of d. d is pinned while C
// writes it (a no-op for memory outside Go's heap).
func boxMullerFloat64(d []float64, mean, std float64) error {
	if len(d) == 0 {
		return nil
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(&d[0])
	err := cpukernels.NormalFillFloat64(unsafe.Pointer(&d[0]), len(d), mean, std)
	runtime.KeepAlive(d)
	return err
}

// chunk is the number of elements transformed per call into C.
const chunk = 1024

// boxMuller16Bit is normal_fill_16 of c10::Half or c10::BFloat16 on the
// blocks of 16 of d (values of the type dt, held as float32), in their
// mixed arithmetic: each value stored in the type rounded to it, logf,
// cosf and sinf in float. For Half, the functions' results and the last
// line stay float (a fused multiply-add, as GCC contracts it); BFloat16
// has its own log, sqrt, cos, sin and operators (c10/util/BFloat16-math.h),
// so every step is rounded to bfloat16.
func boxMuller16Bit(d []float32, dt dtype.DType, mean, std float64) error {
	round := func(v float32) float32 { return float32(roundTo(float64(v), dt)) }
	bf := dt == dtype.BFloat16
	m, s := round(float32(mean)), round(float32(std))
	n := min(len(d), chunk) / 2
	buf := make([]float32, 3*n) // on the heap: C gets its address
	for len(d) > 0 {
		part := d[:min(len(d), chunk)]
		d = d[len(part):]
		n := len(part) / 2
		lg, cos, sin := buf[:n], buf[n:2*n], buf[2*n:3*n]
		for b := 0; b < len(part); b += 16 {
			for j := range 8 {
				lg[b/2+j] = round(1 - part[b+j])
				cos[b/2+j] = round(float32(2 * math.Pi * float64(part[b+j+8])))
			}
		}
		copy(sin, cos)
		if err := libm(cpukernels.OpLog, lg, cpukernels.OpCos, cos, cpukernels.OpSin, sin); err != nil {
			return err
		}
		for b := 0; b < len(part); b += 16 {
			for j := range 8 {
				k := b/2 + j
				if bf {
					radius := round(sqrtFloat32(round(-2 * round(lg[k]))))
					part[b+j] = round(round(round(radius*round(cos[k]))*s) + m)
					part[b+j+8] = round(round(round(radius*round(sin[k]))*s) + m)
					continue
				}
				radius := round(sqrtFloat32(-2 * lg[k]))
				part[b+j] = round(fmaFloat32(radius*cos[k], s, m))
				part[b+j+8] = round(fmaFloat32(radius*sin[k], s, m))
			}
		}
	}
	return nil
}

// sqrtFloat32 is sqrtf (the square root rounded once: float64's is exact
// enough for float32).
func sqrtFloat32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// libm applies three functions of the C library (cpukernels.OpLog, OpSin,
// OpCos: log or logf, ...) to three slices of equal length, in place,
// through the C engine: PyTorch calls these functions of the same library,
// and Go's math package rounds the last bit differently in about 0.1% of
// cases. The slices are pinned (and so on the heap) while C reads them.
func libm[T float32 | float64](op1 int, x1 []T, op2 int, x2 []T, op3 int, x3 []T) error {
	if len(x1) == 0 || len(x2) != len(x1) || len(x3) != len(x1) {
		return nil
	}
	dt := dtype.Float32
	if _, ok := any(x1).([]float64); ok {
		dt = dtype.Float64
	}
	size := int64(dt.ItemSize())
	var a cpukernels.Attrs
	var pin runtime.Pinner
	defer pin.Unpin()
	for _, w := range [3]struct {
		op int
		x  []T
	}{{op1, x1}, {op2, x2}, {op3, x3}} {
		pin.Pin(&w.x[0])
		p := [cpukernels.MaxOps]unsafe.Pointer{unsafe.Pointer(&w.x[0]), unsafe.Pointer(&w.x[0])}
		s := [cpukernels.MaxOps]int64{size, size}
		if err := cpukernels.Pointwise1D(w.op, int(dt), len(w.x), &p, &s, &a); err != nil {
			return err
		}
	}
	return nil
}

// normalDoubles draws n values of at::normal_distribution<double>, as
// normal_ gives tensors that normal_fill does not take: Box-Muller in
// double on pairs of 53-bit uniforms u1, u2 (radius sqrt(-2 log(1 - u2)),
// angle 2 pi u1), the cosine's value returned and the sine's cached in the
// generator for the next draw, each value v giving fma(v, std, mean).
func normalDoubles(r kernel.Random, n int, mean, std float64) ([]float64, error) {
	out := make([]float64, n)
	v := out
	if n == 0 {
		return out, nil
	}
	if c, ok := r.NextNormal(true); ok {
		v[0] = c
		v = v[1:]
	}
	pairs := (len(v) + 1) / 2
	if pairs > 0 {
		lg, cos := make([]float64, pairs), make([]float64, pairs)
		for i := range pairs {
			u1 := float64(r.Uint64()&(1<<53-1)) * 0x1p-53
			u2 := float64(r.Uint64()&(1<<53-1)) * 0x1p-53
			lg[i], cos[i] = 1-u2, 2*math.Pi*u1
		}
		sin := slices.Clone(cos)
		if err := libm(cpukernels.OpLog, lg, cpukernels.OpCos, cos, cpukernels.OpSin, sin); err != nil {
			return nil, err
		}
		for i := range pairs {
			radius := math.Sqrt(-2 * lg[i])
			v[2*i] = radius * cos[i]
			if 2*i+1 < len(v) {
				v[2*i+1] = radius * sin[i]
			} else {
				r.SetNextNormal(true, radius*sin[i])
			}
		}
	}
	for i, x := range out {
		out[i] = math.FMA(x, std, mean)
	}
	return out, nil
}

// forEachInMemoryOrder calls f with the address of every element of o in
// the order TensorIterator walks an op's only operand: by memory layout,
// smallest stride fastest (for a transposed tensor, the storage's order).
func forEachInMemoryOrder(o *kernel.Operand, f func(p unsafe.Pointer)) {
	if kernel.Numel(o.Shape) == 0 {
		return
	}
	it := getIter()
	defer it.put()
	it.build(o.Shape, []operand{opnd(o)})
	p := it.plan
	nd := int(p.NDim)
	var idx [cpukernels.MaxDims]int64
	base := o.Data()
	off := int64(0)
	for {
		for range p.Shape[0] {
			f(unsafe.Add(base, off))
			off += p.Strides[0][0]
		}
		off -= p.Shape[0] * p.Strides[0][0]
		d := 1
		for ; d < nd; d++ {
			idx[d]++
			off += p.Strides[0][d]
			if idx[d] < p.Shape[d] {
				break
			}
			off -= idx[d] * p.Strides[0][d]
			idx[d] = 0
		}
		if d >= nd {
			return
		}
	}
}

// randomFromToKernel draws integers in [low, high): 32 random bits when the
// range fits, else 64, modulo the range, as PyTorch's random_from_to, in
// memory order.
func randomFromToKernel(c *kernel.Call) error {
	o := &c.Out[0]
	low, high := c.Scalars[0].Int(), c.Scalars[1].Int() // low < high: randomFromToMeta
	span := uint64(high - low)
	r := c.Random
	r.Lock()
	defer r.Unlock()
	forEachInMemoryOrder(o, func(p unsafe.Pointer) {
		var v uint64
		if span >= 1<<32 {
			v = r.Uint64()
		} else {
			v = uint64(r.Uint32())
		}
		x := int64(v%span) + low
		if o.DType.IsFloatingPoint() {
			storeFloat(p, o.DType, float64(x))
		} else {
			storeInt(p, o.DType, x)
		}
	})
	return nil
}

// bernoulliScalarKernel is bernoulli_(p): 1 where a double uniform draw
// is below p, in memory order.
func bernoulliScalarKernel(c *kernel.Call) error {
	o := &c.Out[0]
	prob := c.Scalars[0].Float() // in [0, 1]: bernoulliScalarMeta
	r := c.Random
	r.Lock()
	defer r.Unlock()
	forEachInMemoryOrder(o, func(p unsafe.Pointer) {
		storeInt(p, o.DType, int64(b2u(uniform(r, dtype.Float64, 0, 1) < prob)))
	})
	return nil
}

func bernoulliTensorKernel(c *kernel.Call) error {
	in, o := &c.In[0], &c.Out[0]
	probs := make([]float64, 0, kernel.Numel(in.Shape))
	bad := false
	forEach(in, func(p unsafe.Pointer) {
		v := loadFloat(p, in.DType)
		bad = bad || !(v >= 0 && v <= 1)
		probs = append(probs, v)
	})
	if bad { // PyTorch's message (1.13 and 2.x: bernoulli_distribution's TORCH_CHECK), without its request for a better one
		return kernel.Errorf(kernel.ErrArgument, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
	}
	r := c.Random
	r.Lock()
	defer r.Unlock()
	i := 0
	forEach(o, func(p unsafe.Pointer) {
		storeInt(p, o.DType, int64(b2u(uniform(r, dtype.Float64, 0, 1) < probs[i])))
		i++
	})
	return nil
}

// fmaFloat32 is a*b + c rounded once to float32, as vfmadd...ps. The
// product is exact in float64, so math.FMA rounds only the sum; rounding
// that again to float32 is rounding once unless the first rounding made a
// tie of float32, or a value below float32's normal range: there the sum
// is rounded to odd instead (TwoSum's error picks the neighbour), which
// float32 rounds as the exact sum.
func fmaFloat32(a, b, c float32) float32 {
	s := math.FMA(float64(a), float64(b), float64(c))
	if bits := math.Float64bits(s); bits<<35 == 1<<63 || bits&(0x7ff<<52) < (1023-126)<<52 {
		p, q := float64(float64(a)*float64(b)), float64(c)
		v := s - p
		if e := (p - (s - v)) + (q - v); e != 0 && bits&1 == 0 { // s + e is the sum
			if (e > 0) == (s > 0) {
				bits++
			} else {
				bits--
			}
			s = math.Float64frombits(bits)
		}
	}
	return float32(s)
}

// mulAdd is an _mm256_add_ps of an _mm256_mul_ps in avx_mathfun.h as GCC
// compiles PyTorch's AVX2 kernels: contracted into one fused multiply-add
// (GCC fuses a product whose only use is an addition; rounding the product
// first changes about 1 normal in 100).
func mulAdd(a, b, c float32) float32 { return fmaFloat32(a, b, c) }

// Cephes' constants of avx_mathfun.h, rounded to float as its tables are.
const (
	cephesSqrtHF = float32(0.707106781186547524)
	cephesLogQ1  = float32(-2.12194440e-4)
	cephesLogQ2  = float32(0.693359375)
	cephesDP1    = float32(-0.78515625)
	cephesDP2    = float32(-2.4187564849853515625e-4)
	cephesDP3    = float32(-3.77489497744594108e-8)
	sinCofP0     = float32(-1.9515295891e-4)
	sinCofP1     = float32(8.3321608736e-3)
	sinCofP2     = float32(-1.6666654611e-1)
	cosCofP0     = float32(2.443315711809948e-005)
	cosCofP1     = float32(-1.388731625493765e-003)
	cosCofP2     = float32(4.166664568298827e-002)
	cephesFOPI   = float32(1.27323954473516) // 4 / pi
)

// cephesLog is Cephes' polynomial for log(1+x), p0 to p8.
var cephesLog = [9]float32{7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
	+1.4249322787e-1, -1.6668057665e-1, +2.0000714765e-1, -2.4999993993e-1, +3.3333331174e-1}

// lanes is an AVX register of floats: log8 and sinCos8 work on 8 lanes as
// avx_mathfun.h does, each step across the lanes (independent chains that
// the processor overlaps).
type lanes = [8]float32

// log8 is avx_mathfun.h's log256_ps: x = m 2^e with m in [sqrt(1/2),
// sqrt(2)), and Cephes' polynomial in m-1. NaN for x <= 0.
func log8(x *lanes) lanes {
	var m, e, z, y lanes
	var invalid [8]bool
	for j, v := range x {
		invalid[j] = v <= 0
		if !(v >= 0x1p-126) { // _mm256_max_ps(x, min_norm_pos), NaN included
			v = 0x1p-126
		}
		b := math.Float32bits(v)
		e[j] = float32(int32(b>>23)-0x7f) + 1
		v = math.Float32frombits(b&^0x7f800000 | math.Float32bits(0.5))
		if v < cephesSqrtHF {
			e[j]--
			v = (v - 1) + v
		} else {
			v = (v - 1) + 0
		}
		m[j], z[j] = v, v*v
		y[j] = cephesLog[0]
	}
	for _, p := range cephesLog[1:] {
		for j := range y {
			y[j] = mulAdd(y[j], m[j], p)
		}
	}
	for j := range y {
		t := float32(y[j] * m[j])
		t = mulAdd(t, z[j], float32(e[j]*cephesLogQ1))
		t = mulAdd(z[j], -0.5, t)
		y[j] = mulAdd(e[j], cephesLogQ2, m[j]+t)
		if invalid[j] {
			y[j] = math.Float32frombits(0xffffffff)
		}
	}
	return y
}

// sinCos8 is avx_mathfun.h's sincos256_ps (Cephes' sinf and cosf): x
// reduced by multiples of pi/4 in three parts, then one of two polynomials
// for each result, chosen by the octant.
func sinCos8(x *lanes) (sin, cos lanes) {
	const signBit = 1 << 31
	var r, z lanes
	var signSin, signCos [8]uint32
	var sinFirst [8]bool
	for j, v := range x {
		b := math.Float32bits(v)
		signSin[j] = b & signBit
		v = math.Float32frombits(b &^ signBit)
		k := cvttFloat32(float32(v * cephesFOPI))
		k = (k + 1) &^ 1
		y := float32(k)
		signSin[j] ^= uint32(k&4) << 29
		signCos[j] = uint32(^(k-2)&4) << 29
		sinFirst[j] = k&2 == 0 // the sine takes the second polynomial
		v = mulAdd(y, cephesDP1, v)
		v = mulAdd(y, cephesDP2, v)
		v = mulAdd(y, cephesDP3, v)
		r[j], z[j] = v, v*v
	}
	for j := range r {
		c := mulAdd(cosCofP0, z[j], cosCofP1)
		c = mulAdd(c, z[j], cosCofP2)
		c = float32(c * z[j])
		c = mulAdd(c, z[j], -float32(z[j]*0.5))
		c += 1
		s := mulAdd(sinCofP0, z[j], sinCofP1)
		s = mulAdd(s, z[j], sinCofP2)
		s = float32(s * z[j])
		s = mulAdd(s, r[j], r[j])
		// The selection, with its additions of +0 (which turn -0 into +0).
		if sinFirst[j] {
			s, c = 0+s, c+(s-s)
		} else {
			s, c = c+0, (c-c)+s
		}
		sin[j] = math.Float32frombits(math.Float32bits(s) ^ signSin[j])
		cos[j] = math.Float32frombits(math.Float32bits(c) ^ signCos[j])
	}
	return sin, cos
}

// cvttFloat32 is cvttps2dq: x truncated to int32, 0x80000000 when out of
// range or NaN.
func cvttFloat32(x float32) int32 {
	if !(x > -0x1p31 && x < 0x1p31) {
		return math.MinInt32
	}
	return int32(x)
}
