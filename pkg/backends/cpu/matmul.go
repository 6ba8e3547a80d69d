package cpu

import (
	"runtime"
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"

	"github.com/mindtorch/mindtorch/cgo/cpukernels"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/backends/meta"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	for _, op := range []kernel.OpID{kernel.OpMm, kernel.OpBmm, kernel.OpAddmm, kernel.OpBaddbmm} {
		kernel.Register(op, device.CPU, matmulKernel)
	}
	kernel.Register(kernel.OpDot, device.CPU, dotKernel)
}

// gemmDType is the dtype a product computes in: float16 and bfloat16 in
// float32, integers in int64 (wrapping, then cast back as PyTorch's wrap).
func gemmDType(d dtype.DType) dtype.DType {
	if d.IsFloatingPoint() {
		return engineDType(d)
	}
	return dtype.Int64
}

// matrices is one operand of a product as BLAS takes it: batch matrices,
// each row-major with leading dimension ld (or its transpose, when trans),
// bs elements apart.
type matrices struct {
	ptr   unsafe.Pointer
	trans bool
	ld    int
	bs    int
	mem   kernel.Memory // keeps the memory alive
	temp  bool          // mem is a copy made for BLAS
}

// release frees a copy made for BLAS.
func (m matrices) release() {
	if m.temp {
		m.mem.Release()
	}
}

// asMatrices returns o ([rows, cols] or [batch, rows, cols]) as BLAS
// matrices of dtype d: o itself when BLAS can read its strides (transposed
// ones as a transpose flag), else a contiguous copy.
func asMatrices(o *kernel.Operand, d dtype.DType) (matrices, error) {
	nd := len(o.Shape)
	rows, cols := o.Shape[nd-2], o.Shape[nd-1]
	s0, s1 := o.Strides[nd-2], o.Strides[nd-1]
	bs := 0
	if nd == 3 && o.Shape[0] > 1 {
		bs = o.Strides[0]
	}
	if o.DType == d {
		if trans, ld, ok := blasLayout(rows, cols, s0, s1); ok {
			return matrices{ptr: o.Data(), trans: trans, ld: ld, bs: bs, mem: o.Mem}, nil
		}
	}
	t, err := contiguousCopy(o, d)
	if err != nil {
		return matrices{}, err
	}
	if nd == 3 {
		bs = rows * cols
	}
	return matrices{ptr: t.Data(), ld: max(cols, 1), bs: bs, mem: t.Mem, temp: true}, nil
}

// blasLayout says how BLAS reads a rows x cols matrix with element strides
// s0, s1: row-major with leading dimension s0, or column-major (a
// transposed row-major matrix) with leading dimension s1.
func blasLayout(rows, cols, s0, s1 int) (trans bool, ld int, ok bool) {
	if cols <= 1 {
		s1 = 1 // one column: its stride is never used
	}
	if rows <= 1 {
		s0 = max(cols, 1)
	}
	switch {
	case s1 == 1 && s0 >= max(cols, 1):
		return false, s0, true
	case s0 == 1 && s1 >= max(rows, 1):
		return true, s1, true
	}
	return false, 0, false
}

// matmulKernel runs mm, bmm, addmm and baddbmm.
func matmulKernel(c *kernel.Call) error {
	ain, bin := meta.MatmulOperands(c)
	o := &c.Out[0]
	eng := gemmDType(o.DType)
	nd := len(o.Shape)
	batch := 1
	if nd == 3 {
		batch = o.Shape[0]
	}
	m, n, k := o.Shape[nd-2], o.Shape[nd-1], ain.Shape[nd-1]
	alpha, beta := 1.0, 0.0
	addInput := c.Op == kernel.OpAddmm || c.Op == kernel.OpBaddbmm
	if addInput {
		beta, alpha = c.Scalars[0].Float(), c.Scalars[1].Float()
		if !eng.IsFloatingPoint() {
			beta, alpha = float64(c.Scalars[0].Int()), float64(c.Scalars[1].Int())
		}
	}
	// The result: straight into the output when it has the engine's dtype
	// and is contiguous (gemm writes rows of n with batches m*n apart), else
	// into a temporary copied into the output (a given out= or strided one).
	res := *o
	direct := o.DType == eng && kernel.IsContiguous(o.Shape, o.Strides)
	if !direct {
		var err error
		if res, err = newContiguous(o.Shape, eng); err != nil {
			return err
		}
		defer res.Mem.Release()
	}
	if addInput && beta != 0 {
		if err := castInto(opnd(&res), eng, opnd(&c.In[0]), c.In[0].DType, res.Shape); err != nil {
			return err
		}
	} else {
		beta = 0
	}
	if k == 0 { // an empty sum: out = beta*input
		forEach(&res, func(p unsafe.Pointer) {
			if beta == 0 {
				storeInt(p, eng, 0)
			} else if eng.IsFloatingPoint() {
				storeFloat(p, eng, beta*loadFloat(p, eng))
			} else {
				storeInt(p, eng, int64(beta)**(*int64)(p))
			}
		})
	} else if err := matmulInto(eng, ain, bin, m, n, k, alpha, beta, &res, batch); err != nil {
		return err
	}
	if !direct {
		return castInto(opnd(o), o.DType, opnd(&res), eng, o.Shape)
	}
	return nil
}

// matmulInto computes res = alpha*ain@bin + beta*res in dtype eng.
func matmulInto(eng dtype.DType, ain, bin *kernel.Operand, m, n, k int, alpha, beta float64, res *kernel.Operand, batch int) error {
	a, err := asMatrices(ain, eng)
	if err != nil {
		return err
	}
	defer a.release()
	b, err := asMatrices(bin, eng)
	if err != nil {
		return err
	}
	defer b.release()
	return gemm(eng, m, n, k, alpha, a, b, beta, res.Data(), n, m*n, batch)
}

// dotKernel is dot: a [1, k] by [k, 1] product.
func dotKernel(c *kernel.Call) error {
	x, y, o := &c.In[0], &c.In[1], &c.Out[0]
	eng := gemmDType(o.DType)
	k := x.Shape[0]
	xm := kernel.Operand{Mem: x.Mem, Ptr: x.Ptr, DType: x.DType, Offset: x.Offset,
		Shape: []int{1, k}, Strides: []int{k * x.Strides[0], x.Strides[0]}}
	ym := kernel.Operand{Mem: y.Mem, Ptr: y.Ptr, DType: y.DType, Offset: y.Offset,
		Shape: []int{k, 1}, Strides: []int{y.Strides[0], 1}}
	a, err := asMatrices(&xm, eng)
	if err != nil {
		return err
	}
	defer a.release()
	b, err := asMatrices(&ym, eng)
	if err != nil {
		return err
	}
	defer b.release()
	res := *o
	if o.DType != eng {
		if res, err = newContiguous(nil, eng); err != nil {
			return err
		}
		defer res.Mem.Release()
	}
	if err := gemm(eng, 1, 1, k, 1, a, b, 0, res.Data(), 1, 1, 1); err != nil {
		return err
	}
	if o.DType != eng {
		return castInto(opnd(o), o.DType, opnd(&res), eng, nil)
	}
	return nil
}

// gemm computes batch products out = alpha*a@b + beta*out, m x k by k x n,
// into row-major matrices with leading dimension ldc, sc elements apart.
func gemm(d dtype.DType, m, n, k int, alpha float64, a, b matrices, beta float64, out unsafe.Pointer, ldc, sc, batch int) error {
	defer runtime.KeepAlive(a.mem)
	defer runtime.KeepAlive(b.mem)
	if d == dtype.Int64 || useOpenBLAS() {
		resched()
		err := cpukernels.Gemm(int(d), a.trans, b.trans, m, n, k, alpha, a.ptr, a.ld, a.bs, b.ptr, b.ld, b.bs,
			beta, out, ldc, sc, batch)
		if err != nil {
			return kernel.Errorf(kernel.ErrNotImplemented, "no CPU matrix product for %s", kernel.PyName(d))
		}
		return nil
	}
	gonumGemm(d, m, n, k, alpha, a, b, beta, out, ldc, sc, batch)
	return nil
}

// gonumGemm is gemm with gonum's pure-Go BLAS, for hosts without OpenBLAS.
func gonumGemm(d dtype.DType, m, n, k int, alpha float64, a, b matrices, beta float64, out unsafe.Pointer, ldc, sc, batch int) {
	ta, tb := transpose(a.trans), transpose(b.trans)
	es := d.ItemSize()
	la, lb, lc := span(m, k, a), span(k, n, b), max((m-1)*ldc+n, 0)
	impl := gonum.Implementation{}
	for i := range batch {
		pa, pb, pc := unsafe.Add(a.ptr, i*a.bs*es), unsafe.Add(b.ptr, i*b.bs*es), unsafe.Add(out, i*sc*es)
		if d == dtype.Float32 {
			impl.Sgemm(ta, tb, m, n, k, float32(alpha), unsafe.Slice((*float32)(pa), la), a.ld,
				unsafe.Slice((*float32)(pb), lb), b.ld, float32(beta), unsafe.Slice((*float32)(pc), lc), ldc)
		} else {
			impl.Dgemm(ta, tb, m, n, k, alpha, unsafe.Slice((*float64)(pa), la), a.ld,
				unsafe.Slice((*float64)(pb), lb), b.ld, beta, unsafe.Slice((*float64)(pc), lc), ldc)
		}
	}
}

func transpose(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// span is the number of elements a rows x cols operand covers in memory.
func span(rows, cols int, mt matrices) int {
	if mt.trans {
		rows, cols = cols, rows
	}
	if rows == 0 || cols == 0 {
		return 0
	}
	return (rows-1)*mt.ld + cols
}
