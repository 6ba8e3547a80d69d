package cpu

import (
	"errors"
	"runtime"
	"unsafe"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/backends/meta"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// The direct kernels (cgo/cpukernels/conv_direct.c, conv_wgrad.c) run
// float32 convolutions of dilation 1 without a column matrix: the forward
// (any stride) and the input gradient (stride 1: strided, it is no
// convolution of the output gradient) on CPUs with AVX2 and FMA, the
// weight gradient (any stride) on AVX-512 ones. Their vectors run along
// output channels, so they would waste lanes on groups of few channels;
// and their sums leave the registers through transposes, which costs more
// than short sums (one input channel of a 3x3 kernel: 1.5x slower than
// GEMM). Those stay with im2col and GEMM, as do 1x1 kernels (whose
// columns are the input itself, or a strided copy of it, and whose
// products GEMM runs as fast or, for the weight gradient, twice as fast)
// and everything else.

// directMinChannels is the fewest output channels per group that the
// direct kernel takes, directMinTerms the fewest terms per output sum.
const (
	directMinChannels = 8
	directMinTerms    = 16
)

// directConv says whether the direct kernel runs a convolution computed
// in eng with p and a kh x kw kernel, from cin to cout channels per group.
func directConv(eng dtype.DType, p meta.ConvParams, kh, kw, cin, cout int) bool {
	return eng == dtype.Float32 && p.DH == 1 && p.DW == 1 && kh*kw > 1 && cout >= directMinChannels &&
		cin*kh*kw >= directMinTerms && cpukernels.ConvDirectAvailable()
}

// directInputGrad says whether the direct kernel runs the input gradient
// of such a convolution, of cg input and og output channels per group: a
// convolution from og to cg channels.
func directInputGrad(eng dtype.DType, p meta.ConvParams, kh, kw, cg, og int) bool {
	return p.SH == 1 && p.SW == 1 && directConv(eng, p, kh, kw, og, cg)
}

// directScratch is the scratch of the direct kernels: packed weights and,
// when the input is padded, its padded copy.
type directScratch struct {
	w, x   kernel.Operand
	nx     int // floats in x
	padded bool
}

func newDirectScratch(dp *cpukernels.ConvDirectParams) (directScratch, error) {
	nw, nx := dp.Scratch(runtime.GOMAXPROCS(0))
	s := directScratch{nx: nx}
	var err error
	if s.w, err = newContiguous([]int{nw}, dtype.Float32); err != nil {
		return s, err
	}
	if nx > 0 {
		if s.x, err = newContiguous([]int{nx}, dtype.Float32); err != nil {
			s.w.Mem.Release()
			return s, err
		}
		s.padded = true
	}
	return s, nil
}

// xpad is the padded input's buffer, nil when the input needs none.
func (s directScratch) xpad() unsafe.Pointer {
	if s.padded {
		return s.x.Data()
	}
	return nil
}

func (s directScratch) release() {
	s.w.Mem.Release()
	if s.padded {
		s.x.Mem.Release()
	}
}

// convDirect runs the direct kernel on xo and wo (converted to contiguous
// float32 when they are not) with bias (float32, or nil) into out. It
// returns cpukernels.ErrNonFinite as it is, for the caller to take
// another way.
func convDirect(dp *cpukernels.ConvDirectParams, xo, wo *kernel.Operand, bias, out unsafe.Pointer) error {
	x, err := contiguousIn(xo, dtype.Float32)
	if err != nil {
		return err
	}
	defer x.release()
	w, err := contiguousIn(wo, dtype.Float32)
	if err != nil {
		return err
	}
	defer w.release()
	s, err := newDirectScratch(dp)
	if err != nil {
		return err
	}
	defer s.release()
	beginLarge()
	err = cpukernels.ConvDirect(dp, x.ptr(), w.ptr(), bias, out, s.w.Data(), s.xpad(), s.nx)
	if err != nil && !errors.Is(err, cpukernels.ErrNonFinite) {
		return kernel.Errorf(kernel.ErrRuntime, "direct convolution of input %s by weight %s: %v",
			kernel.ShapeString(xo.Shape), kernel.ShapeString(wo.Shape), err)
	}
	return err
}

// directWeightGrad says whether the direct weight gradient runs a
// convolution computed in eng with p and a kh x kw kernel, of cg input and
// og output channels per group.
func directWeightGrad(eng dtype.DType, p meta.ConvParams, kh, kw, cg, og int) bool {
	return directConv(eng, p, kh, kw, cg, og) && cpukernels.ConvWeightGradAvailable()
}

// convWeightGradDirect writes into out the weight gradient of the
// convolution dp from the output gradient gy and the input xo.
func convWeightGradDirect(dp *cpukernels.ConvDirectParams, gy, xo *kernel.Operand, out unsafe.Pointer) error {
	g, err := contiguousIn(gy, dtype.Float32)
	if err != nil {
		return err
	}
	defer g.release()
	x, err := contiguousIn(xo, dtype.Float32)
	if err != nil {
		return err
	}
	defer x.release()
	s, err := newDirectScratch(dp)
	if err != nil {
		return err
	}
	defer s.release()
	beginLarge()
	if err := cpukernels.ConvWeightGrad(dp, x.ptr(), g.ptr(), out, s.w.Data(), s.xpad(), s.nx); err != nil {
		return kernel.Errorf(kernel.ErrRuntime, "direct weight gradient of input %s from output gradient %s: %v",
			kernel.ShapeString(xo.Shape), kernel.ShapeString(gy.Shape), err)
	}
	return nil
}
