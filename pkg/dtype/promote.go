package dtype

// Promote returns the smallest dtype to which both a and b can be converted
// without losing their category, as torch.promote_types.
func Promote(a, b DType) DType {
	if a == b {
		return a
	}
	ka, kb := a.Kind(), b.Kind()
	switch {
	case ka == KindBool:
		return b
	case kb == KindBool:
		return a
	case ka == KindFloat && kb == KindFloat:
		if (a == Float16 && b == BFloat16) || (a == BFloat16 && b == Float16) {
			return Float32
		}
		return wider(a, b)
	case ka == KindFloat:
		return a
	case kb == KindFloat:
		return b
	}
	// Both integers. uint8 meets a signed type: int8 needs int16 to hold both
	// ranges; wider signed types already hold every uint8.
	if a == Uint8 || b == Uint8 {
		other := a
		if a == Uint8 {
			other = b
		}
		if other == Int8 {
			return Int16
		}
		return other
	}
	return wider(a, b)
}

func wider(a, b DType) DType {
	if a.ItemSize() >= b.ItemSize() {
		return a
	}
	return b
}

// Priority is how strongly an operand's dtype takes part in type promotion.
// A tensor with dimensions outranks a 0-dim tensor, which outranks a Go
// scalar: a lower-priority operand can raise the category (int to float) but
// never the width within the category.
type Priority uint8

// The priorities, from strongest to weakest.
const (
	Dimensioned Priority = iota // a tensor with at least one dimension
	ZeroDim                     // a 0-dim tensor
	Scalar                      // a Go scalar (PyTorch's "wrapped number")
)

// ResultType accumulates operands and computes the dtype an op on all of
// them produces, as torch.result_type. The zero value is empty.
type ResultType struct {
	have [3]bool
	dt   [3]DType
}

// Add records an operand of dtype d at priority p. A float Go scalar counts as
// the default dtype, an integer one as int64, as in PyTorch.
func (r *ResultType) Add(d DType, p Priority) {
	if p == Scalar && d.IsFloatingPoint() {
		d = Default()
	}
	if !r.have[p] {
		r.have[p], r.dt[p] = true, d
		return
	}
	r.dt[p] = Promote(r.dt[p], d)
}

// Result is the promoted dtype. With no operands it is the default dtype.
func (r *ResultType) Result() DType {
	lowHave, low := combine(r.have[ZeroDim], r.dt[ZeroDim], r.have[Scalar], r.dt[Scalar])
	have, d := combine(r.have[Dimensioned], r.dt[Dimensioned], lowHave, low)
	if !have {
		return Default()
	}
	return d
}

// combine merges a higher-priority dtype with a lower-priority one: the
// higher keeps its width unless the lower is of a higher category.
func combine(hiHave bool, hi DType, loHave bool, lo DType) (bool, DType) {
	switch {
	case !hiHave:
		return loHave, lo
	case !loHave:
		return true, hi
	case hi.IsFloatingPoint():
		return true, hi
	case hi == Bool || lo.IsFloatingPoint():
		return true, Promote(hi, lo)
	}
	return true, hi
}

// CanCast reports whether a value of dtype from may be written into an
// output of dtype to by an op, as torch.can_cast: casting may not lower the
// category (float to int, int to bool).
func CanCast(from, to DType) bool {
	return from.Kind() <= to.Kind()
}
