package cpu

import (
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/backends/meta"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	for _, op := range []kernel.OpID{
		kernel.OpMaxPool2d, kernel.OpMaxPool2dBackward, kernel.OpAvgPool2d, kernel.OpAvgPool2dBackward,
		kernel.OpAdaptiveAvgPool2d, kernel.OpAdaptiveAvgPool2dBackward,
		kernel.OpAdaptiveMaxPool2d, kernel.OpAdaptiveMaxPool2dBackward,
	} {
		kernel.Register(op, device.CPU, poolKernel)
	}
}

// poolCOp is the C engine's op of a pooling op.
var poolCOp = map[kernel.OpID]int{
	kernel.OpMaxPool2d:                 cpukernels.PoolMax,
	kernel.OpMaxPool2dBackward:         cpukernels.PoolMaxBackward,
	kernel.OpAvgPool2d:                 cpukernels.PoolAvg,
	kernel.OpAvgPool2dBackward:         cpukernels.PoolAvgBackward,
	kernel.OpAdaptiveAvgPool2d:         cpukernels.PoolAdaptiveAvg,
	kernel.OpAdaptiveAvgPool2dBackward: cpukernels.PoolAdaptiveAvgBackward,
	kernel.OpAdaptiveMaxPool2d:         cpukernels.PoolAdaptiveMax,
	kernel.OpAdaptiveMaxPool2dBackward: cpukernels.PoolMaxBackward,
}

// poolKernel runs a pooling op or its gradient: one C call over
// contiguous [planes, H, W] arrays (the operands themselves when they are
// contiguous in the compute dtype, else copies), split by planes across
// the pool when the op is large. bfloat16 computes in float32, as
// PyTorch's opmath does, and is rounded once at the end.
func poolKernel(c *kernel.Call) error {
	g, err := meta.PoolGeometry(c)
	if err != nil {
		return err
	}
	self := &c.In[0]
	if g.Backward {
		self = &c.In[1]
	}
	eng := self.DType
	if eng == dtype.BFloat16 {
		eng = dtype.Float32
	}
	p := cpukernels.PoolParams{
		Planes: g.Planes(), IH: g.IH, IW: g.IW, OH: g.OH, OW: g.OW,
		KH: g.KH, KW: g.KW, SH: g.SH, SW: g.SW, PH: g.PH, PW: g.PW, DH: g.DH, DW: g.DW,
		CountIncludePad: g.CountIncludePad, Divisor: g.Divisor,
	}
	withIndices := g.Kind == meta.PoolMax || g.Kind == meta.PoolAdaptiveMax
	if p.Planes == 0 {
		return nil
	}

	// x: the input (forward) or the output's gradient (backward).
	x, err := asContiguous(&c.In[0], eng)
	if err != nil {
		return err
	}
	defer releaseTemp(&x, &c.In[0])
	var idx unsafe.Pointer
	out := &c.Out[0]
	var idxOut *kernel.Operand
	var idxTmp kernel.Operand
	if withIndices {
		if g.Backward {
			ix, err := asContiguous(&c.In[2], dtype.Int64)
			if err != nil {
				return err
			}
			defer releaseTemp(&ix, &c.In[2])
			idx = ix.Data()
		} else {
			idxOut = &c.Out[1]
			if idxOut.IsContiguous() {
				idx = idxOut.Data()
			} else {
				if idxTmp, err = newContiguous(idxOut.Shape, dtype.Int64); err != nil {
					return err
				}
				defer idxTmp.Mem.Release()
				idx = idxTmp.Data()
			}
		}
	}
	var tmp kernel.Operand
	y := out.Data()
	if out.DType != eng || !out.IsContiguous() {
		if tmp, err = newContiguous(out.Shape, eng); err != nil {
			return err
		}
		defer tmp.Mem.Release()
		y = tmp.Data()
	}

	perPlane := max(g.IH*g.IW, g.OH*g.OW*max(g.KH*g.KW, 1))
	share := 0 // one share on the caller
	if perPlane*p.Planes >= grain && p.Planes > 1 {
		beginLarge()
		share = max(1, grain/2/max(perPlane, 1))
	}
	if err := cpukernels.Pool2d(poolCOp[c.Op], int(eng), &p, x.Data(), y, idx, share); err != nil {
		return kernel.Errorf(kernel.ErrNotImplemented, "no CPU kernel for %s in %s", c.Op, kernel.PyName(eng))
	}
	if tmp.Mem != nil {
		if err := castInto(opnd(out), out.DType, opnd(&tmp), eng, out.Shape); err != nil {
			return err
		}
	}
	if idxTmp.Mem != nil {
		return castInto(opnd(idxOut), dtype.Int64, opnd(&idxTmp), dtype.Int64, idxOut.Shape)
	}
	return nil
}
