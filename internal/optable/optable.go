// Package optable is the table of MindTorch's ops: the single truth from
// which `go generate` writes the plumbing that every op needs (ATen's
// native_functions.yaml plays this part in PyTorch).
//
// One row per op says its ID and PyTorch name, how a pointwise op chooses
// its dtypes, the public forms pkg/torch offers, and the C expression of
// its CPU loop. From the table, ./gen writes:
//
//	pkg/backends/kernel/ops_gen.go     the op IDs and their names
//	pkg/backends/meta/pointwise_gen.go the meta function's dtype rule of each pointwise op
//	pkg/backends/cpu/pointwise_gen.go  which ops the C engine runs, their variants and attributes
//	cgo/cpukernels/ops_gen.h           the C enums of dtypes and ops, numbered as in Go
//	cgo/cpukernels/loops_gen.h         the C loops of the pointwise ops
//	cgo/cpukernels/ops_gen.go          the same C enums as cgo constants, for the test that pins them
//	pkg/torch/pointwise_gen.go         the public forms (X, XScalar, X_, XScalar_, Into(out).X, RX)
//
// What stays written by hand per op: kernels that are more than one
// expression (cgo/cpukernels/pointwise.c), the gradient formula (one table,
// pkg/torch/pointwise_grad.go), the NPU mapping (pkg/backends/npu), and
// the golden cases (scripts/golden). A test regenerates every file and
// fails when a committed one differs.
package optable

//go:generate go run ./gen

// Kind is an op's engine: the pointwise ops share the meta function, the C
// engine and the generated public forms; the others have their own.
type Kind uint8

// The kinds of ops.
const (
	Other   Kind = iota // its own meta function, kernels and public API
	Unary               // Out[0] = f(In[0]) (and Scalars as attributes)
	Binary              // Out[0] = f(In[0], In[1]), In[1] may be a Go scalar
	Ternary             // three inputs, C loops written by hand
)

// Rule is how a pointwise op chooses its compute and output dtypes from
// the promoted dtype of its inputs.
type Rule uint8

// The dtype rules (the names are the meta package's).
const (
	Same      Rule = iota // compute and output in the promoted dtype
	ToFloat               // integers and bool compute in the default float dtype
	FloatOnly             // floating inputs only
	IntOnly               // integers and bool only (bitwise ops)
	ToBool                // compute in the promoted dtype, bool output
)

// Op is one row of the table.
type Op struct {
	ID      string // the Go name after kernel.Op: "Add" is kernel.OpAdd, C's MT_ADD
	Name    string // PyTorch's name, used in errors
	Attrs   string // the call's attributes, documented on the op ID
	Section string // starts a group of ops in the generated enum, with this comment

	Kind   Kind
	Rule   Rule
	NoBool bool   // bool inputs are refused
	BoolAs string // PyTorch's message for refused bool inputs, when it has its own

	// Pointwise ops: the C loops, by dtype class, each a C expression of
	// the operands x, y (z) and the attributes c0..c3, with the helpers of
	// pointwise.c. Empty: no loop for that class. CustomC: the loops are
	// written in pointwise.c.
	Float, Int, Bool string
	CustomC          bool
	// CAttrs lists the call's scalars that become the C attributes c0, c1, ...
	CAttrs []int
	// Variants are further C loops of this op chosen by the call's Mode.
	Variants []Variant

	// Forms are the public methods generated in pkg/torch.
	Forms []Form
}

// Variant is a C loop of an op for one value of the call's Mode.
type Variant struct {
	Suffix           string // C name after the op's: "TRUNC" is MT_DIV_TRUNC
	Mode             string // the Go constant of the mode: "kernel.RoundTrunc"
	Float, Int, Bool string
}

// Form is a family of public methods of one op and mode.
type Form struct {
	Go    string   // the method name: "Add"
	Mode  string   // the call's Mode ("0" when empty)
	Alpha string   // for Add and Sub: the alpha scalar ("one")
	Doc   string   // the doc comment of the tensor form, after the name: "returns t + other"
	Has   string   // which forms: t (tensor), s (Go scalar), _ (in place), s_ (scalar in place), out (Into), r (scalar first)
	Param []string // unary ops: Go float64 parameters passed as the call's scalars
}
