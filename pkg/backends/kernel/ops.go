package kernel

// OpID names an op in the registry. The set of ops is closed: it is the
// op table (internal/optable), from which ops_gen.go is generated, and a
// backend registers kernels for some of them.
type OpID uint16

// Rounding modes of OpDiv.
const (
	RoundNone  = iota // true division
	RoundTrunc        // round toward zero
	RoundFloor        // round toward negative infinity
)

// Approximations of OpGelu.
const (
	GeluNone = iota // the exact erf form
	GeluTanh        // the tanh approximation
)

// Which bounds OpClamp and OpClampTensor have (bits of Mode).
const (
	ClampMin = 1 << iota
	ClampMax
)

// Outputs of OpUnique beyond the values (bits of Mode).
const (
	UniqueInverse = 1 << iota // the inverse indices
	UniqueCounts              // the counts
)

// Forms of OpSvd (bits of Mode).
const (
	SvdFull       = 1 << iota // full_matrices: U is (m, m) and Vh (n, n)
	SvdValuesOnly             // only S (svdvals); Out has one operand
)

// Reductions of OpScatter and OpScatterReduce (Mode).
const (
	ReduceNone = iota
	ReduceSum
	ReduceProd
	ReduceMean
	ReduceAmax
	ReduceAmin
)

// String is the op's name as PyTorch spells it.
func (op OpID) String() string {
	if op < NumOps && opNames[op] != "" {
		return opNames[op]
	}
	return "op(" + itoa(int(op)) + ")"
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b [20]byte
	p := len(b)
	for ; i > 0; i /= 10 {
		p--
		b[p] = byte('0' + i%10)
	}
	return string(b[p:])
}
