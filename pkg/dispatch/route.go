package dispatch

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
)

// Route is how the dispatcher ran a call.
type Route uint8

// The routes, in the order the dispatcher tries them.
const (
	// Native: the device's kernel (on the meta device, the meta function).
	Native Route = iota
	// Decomposed: the op's decomposition, ops the device has (see
	// RegisterDecomposition).
	Decomposed
	// HostFallback: the operands copied to the host, the CPU kernel, and the
	// results copied back (torch_npu's CPU fallback).
	HostFallback
	numRoutes
)

func (r Route) String() string {
	switch r {
	case Native:
		return "native"
	case Decomposed:
		return "decomposed"
	case HostFallback:
		return "host fallback"
	}
	return "unknown route"
}

// decompositions holds the decomposition of each op, if any.
var decompositions [kernel.NumOps]kernel.KernelFunc

// RegisterDecomposition installs the decomposition of op: a function that
// computes a prepared call (its outputs laid out and, unless the call is
// Dynamic, bound to memory) with other ops, on the call's device. The
// dispatcher runs it when the device has no kernel for op or its kernel
// returns kernel.ErrNotImplemented for the call, as ATen runs a
// CompositeImplicitAutograd op; callers never choose. pkg/torch registers
// its decompositions in init. Registering twice is a bug and panics at init.
func RegisterDecomposition(op kernel.OpID, f kernel.KernelFunc) {
	if op <= kernel.OpInvalid || op >= kernel.NumOps {
		panic("dispatch: decomposition of an invalid op")
	}
	if decompositions[op] != nil {
		panic("dispatch: decomposition of " + op.String() + " registered twice")
	}
	decompositions[op] = f
}

// HasDecomposition reports whether op has a decomposition.
func HasDecomposition(op kernel.OpID) bool {
	return op > kernel.OpInvalid && op < kernel.NumOps && decompositions[op] != nil
}

// counts[op][device type][route] counts the calls that ran by each route.
var counts [kernel.NumOps][device.NumTypes][numRoutes]atomic.Uint64

// Counts is how many calls of one op on one device type ran by each route
// since the program started (or since ResetCounts).
type Counts struct {
	Native, Decomposed, HostFallback uint64
}

// Total is the number of calls counted.
func (c Counts) Total() uint64 { return c.Native + c.Decomposed + c.HostFallback }

// CountsOf returns how the calls of op on devices of type t ran.
func CountsOf(op kernel.OpID, t device.Type) Counts {
	if op >= kernel.NumOps || t >= device.NumTypes {
		return Counts{}
	}
	n := &counts[op][t]
	return Counts{Native: n[Native].Load(), Decomposed: n[Decomposed].Load(), HostFallback: n[HostFallback].Load()}
}

// ResetCounts sets every count of CountsOf to zero.
func ResetCounts() {
	for op := range counts {
		for t := range counts[op] {
			for r := range counts[op][t] {
				counts[op][t][r].Store(0)
			}
		}
	}
}

func count(c *kernel.Call, r Route) {
	counts[c.Op][c.Device.Type][r].Add(1)
}

// Routes lists the routes by which op can run on devices of type t, in the
// order the dispatcher tries them: Native when t has a kernel (or t is
// meta and op a meta function), Decomposed when op has a decomposition,
// HostFallback when t is a device whose memory the host cannot address and
// the CPU has a kernel. An op with no route fails on t.
func Routes(op kernel.OpID, t device.Type) []Route {
	if op <= kernel.OpInvalid || op >= kernel.NumOps || t >= device.NumTypes || kernel.Meta(op) == nil {
		return nil
	}
	var rs []Route
	if kernel.Lookup(op, t) != nil || t == device.Meta {
		rs = append(rs, Native)
	}
	if t == device.Meta {
		return rs
	}
	if decompositions[op] != nil {
		rs = append(rs, Decomposed)
	}
	if hostFallbackFor(op, t) {
		rs = append(rs, HostFallback)
	}
	return rs
}

// hostFallbackFor reports whether calls of op on devices of type t may run
// on the host: t is an accelerator and the CPU has a kernel for op.
func hostFallbackFor(op kernel.OpID, t device.Type) bool {
	return t != device.CPU && t != device.Meta && kernel.Lookup(op, device.CPU) != nil
}

// runnable refuses a call that no route can run on its device.
func runnable(c *kernel.Call) error {
	t := kernelDevice(c)
	if t == device.Meta || kernel.Lookup(c.Op, t) != nil || decompositions[c.Op] != nil || hostFallbackFor(c.Op, t) {
		return nil
	}
	return kernel.Errorf(kernel.ErrNotImplemented,
		"could not run '%s' on device '%s': it is available on %v", c.Op, c.Device.Type, kernel.Devices(c.Op))
}

// runKernel runs a prepared call whose outputs are bound (or a Dynamic one):
// the device's kernel; when the device has none, or its kernel returns
// kernel.ErrNotImplemented for this form of the op, the op's
// decomposition; when that is missing or not implemented either, the CPU
// kernel on copies of the operands. The first error a route returns other
// than ErrNotImplemented is the call's; when every route declines, the
// native kernel's reason (or the decomposition's) is.
func runKernel(c *kernel.Call) error {
	t := kernelDevice(c)
	var declined error
	if k := kernel.Lookup(c.Op, t); k != nil {
		err := k(c)
		if !errors.Is(err, kernel.ErrNotImplemented) {
			count(c, Native)
			return err
		}
		declined = err
	}
	if d := decompositions[c.Op]; d != nil {
		// A decomposition runs its ops at once, also when c itself was
		// captured by a pipeline and runs in its flush (its launches not
		// recorded into the device's batch either): they compute c's
		// outputs now, from operands and temporaries that live only as
		// long as c runs.
		var err error
		kernel.Unbatched(c.Device.Type, func() { Eager(func() { err = d(c) }) })
		if !errors.Is(err, kernel.ErrNotImplemented) {
			count(c, Decomposed)
			return relabel(c, err)
		}
		if declined == nil {
			declined = err
		}
	}
	if hostFallbackFor(c.Op, t) {
		count(c, HostFallback)
		return hostFallback(c)
	}
	if declined == nil {
		declined = kernel.Errorf(kernel.ErrNotImplemented,
			"could not run '%s' on device '%s': it is available on %v", c.Op, c.Device.Type, kernel.Devices(c.Op))
	}
	return declined
}

// relabel makes an error raised inside c's decomposition by one of the ops
// it is made of (where, sum, ...) an error of c's op, the one the caller
// called: the kind stays (errors.Is matches it, and the cause, as before),
// the inner op's message becomes the detail ("in its decomposition,
// where of bool[2] npu:0, ...: the size of tensor a ..."), and the dispatcher fills in c's op and inputs. An error
// that names no op, or c's own, is c's already.
func relabel(c *kernel.Call, err error) error {
	var inner *kernel.OpError
	if err == nil || !errors.As(err, &inner) || inner.Op == "" || inner.Op == c.Op.String() {
		return err
	}
	var b strings.Builder
	b.WriteString("in its decomposition, ")
	b.WriteString(inner.Op)
	if len(inner.Shapes) > 0 { // the inner op's inputs; the outer error lists c's
		b.WriteString(" of ")
		for i, s := range inner.Shapes {
			if i > 0 {
				b.WriteString(", ")
			}
			if i < len(inner.DTypes) {
				b.WriteString(inner.DTypes[i].Name())
			}
			fmt.Fprint(&b, s) // [2 3], as the outer list
			if i < len(inner.Devices) {
				b.WriteString(" ")
				b.WriteString(inner.Devices[i].String())
			}
		}
	}
	b.WriteString(": ")
	b.WriteString(inner.Detail) // the kind leads the outer message, the cause ends it
	return &kernel.OpError{Kind: inner.Kind, Detail: b.String(), Err: inner.Err}
}

// labels[op] is Label(op).
var labels = func() (l [kernel.NumOps]string) {
	for op := range l {
		l[op] = kernel.OpID(op).String()
	}
	// PyTorch's overload names (aten::clamp.Tensor, aten::round.decimals)
	// for the ops that share their PyTorch name with another.
	l[kernel.OpClampTensor] = "clamp.Tensor"
	l[kernel.OpRoundDecimals] = "round.decimals"
	return l
}()

// Label names op in counts, routes and logs: its PyTorch name (the one its
// errors carry), or, for an op that shares that name with another,
// PyTorch's overload name: OpClamp (scalar bounds) is "clamp" and
// OpClampTensor (tensor bounds) "clamp.Tensor", OpRound is "round" and
// OpRoundDecimals "round.decimals". No two ops have the same label.
func Label(op kernel.OpID) string {
	if op > kernel.OpInvalid && op < kernel.NumOps {
		return labels[op]
	}
	return op.String()
}

// String formats counts for logs: "native 3, decomposed 0, host fallback 1".
func (c Counts) String() string {
	var b strings.Builder
	for i, n := range []uint64{c.Native, c.Decomposed, c.HostFallback} {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(Route(i).String())
		b.WriteString(" ")
		b.WriteString(strconv.FormatUint(n, 10))
	}
	return b.String()
}
