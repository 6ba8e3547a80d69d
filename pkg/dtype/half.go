package dtype

import "math"

// F16 is an IEEE 754 half-precision value, stored as its bits. Slices of F16
// make float16 tensors (torch.FromSlice([]dtype.F16{...})).
type F16 uint16

// BF16 is a brain floating-point value (the top 16 bits of a float32),
// stored as its bits. Slices of BF16 make bfloat16 tensors.
type BF16 uint16

// F16FromFloat32 rounds f to the nearest float16, ties to even. Values
// beyond the float16 range become infinities; NaN stays NaN (a quiet NaN with
// f's sign, as PyTorch produces).
func F16FromFloat32(f float32) F16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	man := b & 0x7fffff
	switch {
	case exp == 0xff && man != 0:
		return F16(sign | 0x7e00)
	case exp == 0xff:
		return F16(sign | 0x7c00)
	}
	// Unbiased exponent, then the float16 biased exponent.
	e := exp - 127 + 15
	if e >= 0x1f {
		return F16(sign | 0x7c00)
	}
	if e <= 0 {
		// Subnormal float16 (or zero). The value is man24 * 2^(exp-150); in
		// units of 2^-24 (the float16 subnormal step) that is man24 >> (126-exp).
		if e < -10 {
			return F16(sign) // below half of the smallest subnormal
		}
		man24 := man | 0x800000
		shift := uint32(14 - e) // 126-exp == 14-e
		return F16(sign | uint16(roundShift(man24, shift)))
	}
	// Normal: keep 10 mantissa bits, round the 13 dropped ones. A carry out
	// of the mantissa correctly bumps the exponent (up to infinity).
	v := uint32(e)<<10 | man>>13
	return F16(sign | uint16(v+roundBit(man, 13)))
}

// roundShift returns v >> s rounded to nearest, ties to even.
func roundShift(v, s uint32) uint32 {
	if s >= 32 {
		return 0
	}
	return v>>s + roundBit(v, s)
}

// roundBit is 1 when dropping the low s bits of v must round up (ties to even).
func roundBit(v, s uint32) uint32 {
	if s == 0 {
		return 0
	}
	half := uint32(1) << (s - 1)
	rest := v & (1<<s - 1)
	if rest > half || (rest == half && (v>>s)&1 == 1) {
		return 1
	}
	return 0
}

// Float32 converts h to float32 exactly.
func (h F16) Float32() float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
	case man == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal: man * 2^-24, exact in float32.
	f := float32(man) * (1.0 / (1 << 24))
	if sign != 0 {
		f = -f
	}
	return f
}

// BF16FromFloat32 rounds f to the nearest bfloat16, ties to even; NaN
// becomes the canonical quiet NaN 0x7fc0, as PyTorch does.
func BF16FromFloat32(f float32) BF16 {
	if f != f {
		return 0x7fc0
	}
	b := math.Float32bits(f)
	return BF16((b + 0x7fff + (b>>16)&1) >> 16)
}

// Float32 converts b to float32 exactly.
func (b BF16) Float32() float32 { return math.Float32frombits(uint32(b) << 16) }
