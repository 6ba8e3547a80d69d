package cpu

import (
	"fmt"
	"math"
	"unsafe"

	"gonum.org/v1/gonum/lapack"
	lapackgonum "gonum.org/v1/gonum/lapack/gonum"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/backends/meta"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

func init() {
	kernel.Register(kernel.OpSvd, device.CPU, svdKernel)
}

// svdKernel is linalg_svd on the CPU: each matrix of the batch is
// decomposed by gonum's LAPACK (Dgesvd: Householder bidiagonalization,
// then implicit-shift QR on the bidiagonal), in float64; float32 inputs
// are widened and the results rounded back, so they are at least as
// accurate as PyTorch's float32 gesdd.
//
// Singular values come out in descending order, non-negative. The
// singular vectors of a singular value are unique only up to a common sign
// of the pair (u_i, v_i) (and, for repeated or zero singular values, up to
// a rotation of their subspace): these are the signs Dgesvd produces,
// which may differ from those of PyTorch's LAPACK gesdd. Reconstruction
// U diag(S) Vh, orthonormality and |u_i|, |v_i| for distinct singular
// values are what the two share.
//
// Empty matrices (m or n = 0) have no singular values; U is the m x m and
// Vh the n x n identity where full_matrices asks for them (so for float16
// and bfloat16 too, as PyTorch answers before it looks at the dtype), and
// empty otherwise. Otherwise float16 and bfloat16 are refused, as
// PyTorch 1.13's CPU has no such kernel.
//
// Non-finite input follows PyTorch 1.13 on its usual LAPACK (OpenBLAS): a
// matrix with a NaN fails ("The algorithm failed to converge because the
// input matrix contained non-finite values", naming the batch element of
// batched input); a matrix with an infinity but no NaN gives NaN singular
// values, and here NaN singular vectors too (PyTorch's are whatever LAPACK
// left, and its full decomposition of some such matrices never returns).
func svdKernel(c *kernel.Call) error {
	batch, m, n, k := meta.SvdDims(c)
	in := &c.In[0]
	valuesOnly := c.Mode&kernel.SvdValuesOnly != 0
	full := c.Mode&kernel.SvdFull != 0 && !valuesOnly
	var u, s, vh *kernel.Operand
	if valuesOnly {
		s = &c.Out[0]
	} else {
		u, s, vh = &c.Out[0], &c.Out[1], &c.Out[2]
	}
	nbatch := kernel.Numel(batch)
	if nbatch == 0 {
		return nil
	}
	if k == 0 {
		if full {
			eachMatrix(batch, []*kernel.Operand{u, vh}, func(_ int, off []int) {
				writeIdentity(u, off[0], m)
				writeIdentity(vh, off[1], n)
			})
		}
		return nil
	}
	if in.DType != dtype.Float32 && in.DType != dtype.Float64 {
		return kernel.Errorf(kernel.ErrDType, "\"linalg_svd_cpu\" not implemented for '%s'", kernel.PyName(in.DType))
	}
	ucols, vrows := k, k
	jobU, jobVT := lapack.SVDStore, lapack.SVDStore
	switch {
	case valuesOnly:
		ucols, vrows = 0, 0
		jobU, jobVT = lapack.SVDNone, lapack.SVDNone
	case full:
		ucols, vrows = m, n
		jobU, jobVT = lapack.SVDAll, lapack.SVDAll
	}
	a := make([]float64, m*n)
	sv := make([]float64, k)
	ub := make([]float64, max(m*ucols, 1))
	vb := make([]float64, max(vrows*n, 1))
	ldu, ldvt := max(ucols, 1), max(n, 1)
	if valuesOnly {
		ldvt = 1
	}
	impl := lapackgonum.Implementation{}
	query := []float64{0}
	impl.Dgesvd(jobU, jobVT, m, n, a, n, sv, ub, ldu, vb, ldvt, query, -1)
	lwork := max(int(query[0]), 3*k+max(m, n), 5*k)
	work := make([]float64, lwork)

	ops := []*kernel.Operand{in, s}
	if !valuesOnly {
		ops = append(ops, u, vh)
	}
	var failure error
	eachMatrix(batch, ops, func(b int, off []int) {
		if failure != nil {
			return
		}
		nd := len(in.Shape)
		finite, hasNaN := readMatrix(a, in, off[0], m, n, in.Strides[nd-2], in.Strides[nd-1])
		if hasNaN {
			where := ""
			if len(batch) > 0 {
				where = fmt.Sprintf("(Batch element %d): ", b)
			}
			failure = kernel.Errorf(kernel.ErrRuntime, "linalg.svd: %sThe algorithm failed to converge because the input matrix contained non-finite values.", where)
			return
		}
		if !finite {
			fillNaN(s, off[1], 1, k, 0, s.Strides[len(s.Shape)-1])
			if !valuesOnly {
				fillNaN(u, off[2], m, ucols, u.Strides[nd-2], u.Strides[nd-1])
				fillNaN(vh, off[3], vrows, n, vh.Strides[nd-2], vh.Strides[nd-1])
			}
			return
		}
		if err := gesvd(impl, jobU, jobVT, m, n, a, sv, ub, ldu, vb, ldvt, work); err != nil {
			where := ""
			if len(batch) > 0 {
				where = fmt.Sprintf("(Batch element %d): ", b)
			}
			failure = kernel.Errorf(kernel.ErrRuntime, "linalg.svd: %s%v", where, err)
			return
		}
		writeMatrix(s, off[1], 1, k, 0, s.Strides[len(s.Shape)-1], sv, k)
		if !valuesOnly {
			writeMatrix(u, off[2], m, ucols, u.Strides[nd-2], u.Strides[nd-1], ub, ldu)
			writeMatrix(vh, off[3], vrows, n, vh.Strides[nd-2], vh.Strides[nd-1], vb, ldvt)
		}
	})
	return failure
}

// gesvd runs Dgesvd on the row-major m x n matrix a (which it destroys),
// turning a failure to converge, or a panic of the LAPACK code on
// arguments this kernel got wrong, into an error.
func gesvd(impl lapackgonum.Implementation, jobU, jobVT lapack.SVDJob, m, n int, a, s, u []float64, ldu int,
	vt []float64, ldvt int, work []float64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("LAPACK's gesvd refused its arguments (%v)", r)
		}
	}()
	if !impl.Dgesvd(jobU, jobVT, m, n, a, n, s, u, ldu, vt, ldvt, work, len(work)) {
		return fmt.Errorf("The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated singular values")
	}
	return nil
}

// eachMatrix calls f for every matrix of a batch of shape batch, with the
// element offset of that matrix in each of ops (whose leading dims are the
// batch dims): b is the matrix's row-major index in the batch.
func eachMatrix(batch []int, ops []*kernel.Operand, f func(b int, off []int)) {
	nb := len(batch)
	idx := make([]int, nb)
	off := make([]int, len(ops))
	for i, o := range ops {
		off[i] = o.Offset
	}
	total := kernel.Numel(batch)
	for b := range total {
		f(b, off)
		for d := nb - 1; d >= 0; d-- {
			idx[d]++
			for i, o := range ops {
				off[i] += o.Strides[d]
			}
			if idx[d] < batch[d] {
				break
			}
			for i, o := range ops {
				off[i] -= idx[d] * o.Strides[d]
			}
			idx[d] = 0
		}
	}
}

// elem is the address of the element at offset off (in elements) of o.
func elem(o *kernel.Operand, off int) unsafe.Pointer {
	return unsafe.Add(o.Ptr, off*o.DType.ItemSize())
}

// readMatrix copies the rows x cols matrix of o at element offset off, with
// strides s0, s1, into dst row-major as float64. It reports whether every
// element is finite and whether one is NaN.
func readMatrix(dst []float64, o *kernel.Operand, off, rows, cols, s0, s1 int) (finite, hasNaN bool) {
	finite = true
	for i := range rows {
		row := dst[i*cols : (i+1)*cols]
		at := off + i*s0
		switch o.DType {
		case dtype.Float32:
			for j := range row {
				row[j] = float64(*(*float32)(elem(o, at+j*s1)))
			}
		case dtype.Float64:
			for j := range row {
				row[j] = *(*float64)(elem(o, at+j*s1))
			}
		default:
			for j := range row {
				row[j] = loadFloat(elem(o, at+j*s1), o.DType)
			}
		}
		for _, v := range row {
			if math.IsNaN(v) {
				return false, true
			}
			if math.IsInf(v, 0) {
				finite = false
			}
		}
	}
	return finite, false
}

// writeMatrix stores the rows x cols row-major matrix src (leading
// dimension ld) into o at element offset off with strides s0, s1,
// rounding to o's dtype.
func writeMatrix(o *kernel.Operand, off, rows, cols, s0, s1 int, src []float64, ld int) {
	for i := range rows {
		at := off + i*s0
		row := src[i*ld : i*ld+cols]
		switch o.DType {
		case dtype.Float32:
			for j, v := range row {
				*(*float32)(elem(o, at+j*s1)) = float32(v)
			}
		case dtype.Float64:
			for j, v := range row {
				*(*float64)(elem(o, at+j*s1)) = v
			}
		default:
			for j, v := range row {
				storeFloat(elem(o, at+j*s1), o.DType, v)
			}
		}
	}
}

// fillNaN writes NaN into the rows x cols matrix of o at offset off.
func fillNaN(o *kernel.Operand, off, rows, cols, s0, s1 int) {
	for i := range rows {
		for j := range cols {
			storeFloat(elem(o, off+i*s0+j*s1), o.DType, math.NaN())
		}
	}
}

// writeIdentity writes the n x n identity into the matrix of o (a batch of
// n x n matrices) at element offset off; nothing when n is 0.
func writeIdentity(o *kernel.Operand, off, n int) {
	if n == 0 {
		return
	}
	nd := len(o.Shape)
	s0, s1 := o.Strides[nd-2], o.Strides[nd-1]
	for i := range n {
		for j := range n {
			v := 0.0
			if i == j {
				v = 1
			}
			storeFloat(elem(o, off+i*s0+j*s1), o.DType, v)
		}
	}
}
