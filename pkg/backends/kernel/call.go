package kernel

import (
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// Call is one invocation of an op: the device it runs on, its operands, and
// its attributes. Each op documents which attributes it reads; the rest are
// zero. A Call owns everything a kernel needs, so the dispatcher may run the
// kernel later (deferred mode) without change.
type Call struct {
	Op     OpID
	Device device.Device

	// In are the inputs. Out are the outputs: the meta function fills in
	// their dtypes, shapes and strides unless OutGiven, in which case the
	// caller provided them (an out= or in-place call) and the meta function
	// checks them instead; the dispatcher binds memory to outputs it made.
	In       []Operand
	Out      []Operand
	OutGiven bool

	// Attributes.
	Scalars [3]Scalar   // alpha, fill values, bounds, ...
	Dims    []int       // reduced or permuted dims, normalized by the caller
	Dim     int         // a single dim (softmax, cumsum, ...), normalized
	KeepDim bool        // reductions keep reduced dims as size 1
	DType   dtype.DType // a requested result dtype (sum, cast, creation)
	// HasDType says that DType was requested (reductions, softmax: PyTorch's dtype=).
	HasDType bool
	Mode     int    // an op-specific enumeration (rounding mode, ...)
	Ints     []int  // op-specific integers (shapes, sizes)
	Random   Random // the generator of random ops

	// Dynamic says that the outputs' shapes depend on the data (nonzero,
	// masked_select, unique): the meta function sets only their dtypes, and
	// the kernel allocates and lays them out. The meta device cannot run such ops.
	Dynamic bool

	// ComputeDType is the dtype the kernel computes in, set by the meta
	// function of pointwise ops (the promoted dtype of the inputs).
	ComputeDType dtype.DType

	in   [4]Operand
	out  [2]Operand
	dims [32]int
	used int
}

// Reset prepares the call for an op on a device with nIn inputs and nOut
// outputs, reusing its inline buffers. It clears only what the call's last
// use could have set (a small op's call is reset twice per op, and clearing
// all of its kilobyte showed in profiles).
func (c *Call) Reset(op OpID, dev device.Device, nIn, nOut int) {
	clear(c.in[:min(len(c.In), len(c.in))])
	c.out = [len(c.out)]Operand{} // SetOutputs may have shrunk Out
	clear(c.dims[:c.used])
	c.OutGiven, c.Dynamic, c.KeepDim, c.HasDType = false, false, false, false
	c.Scalars = [3]Scalar{}
	c.Dims, c.Ints, c.Random = nil, nil, nil
	c.Dim, c.Mode, c.used = 0, 0, 0
	c.DType, c.ComputeDType = 0, 0
	c.Init(op, dev, nIn, nOut)
}

// Init prepares a zero (or just Reset) call for an op on a device with nIn
// inputs and nOut outputs, reusing its inline buffers.
func (c *Call) Init(op OpID, dev device.Device, nIn, nOut int) {
	c.Op, c.Device = op, dev
	if nIn <= len(c.in) {
		c.In = c.in[:nIn]
	} else {
		c.In = make([]Operand, nIn)
	}
	if nOut <= len(c.out) {
		c.Out = c.out[:nOut]
	} else {
		c.Out = make([]Operand, nOut)
	}
}

// SetOutputs changes the number of outputs (for meta functions of ops whose
// output count depends on attributes).
func (c *Call) SetOutputs(n int) {
	if n <= len(c.out) && (len(c.Out) == 0 || &c.Out[0] == &c.out[0]) {
		c.Out = c.out[:n]
		return
	}
	out := make([]Operand, n)
	copy(out, c.Out)
	c.Out = out
}

// NewInts returns a slice of n ints from the call's scratch space, for the
// shapes and strides a meta function computes. It allocates only when the
// scratch space is used up.
func (c *Call) NewInts(n int) []int {
	if c.used+n <= len(c.dims) {
		s := c.dims[c.used : c.used+n : c.used+n]
		c.used += n
		return s
	}
	return make([]int, n)
}

// Random is the source of random bits for random ops: PyTorch's CPU
// generator (mt19937 with its normal-sample cache).
type Random interface {
	// Uint32 is the next 32 random bits.
	Uint32() uint32
	// Uint64 is the next 64 random bits (two draws, as PyTorch's random64).
	Uint64() uint64
	// NextNormal returns a cached second normal sample of the Box-Muller pair
	// for the given precision, if one is pending, and clears it.
	NextNormal(double bool) (float64, bool)
	// SetNextNormal stores the second sample of a Box-Muller pair.
	SetNextNormal(double bool, v float64)
	// Lock and Unlock serialize kernels that draw from the generator.
	Lock()
	Unlock()
}
