package torch

import (
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
)

// The singular value decomposition (torch.linalg.svd, torch.linalg.svdvals,
// torch.svd) and its derivative, PyTorch's svd_backward.
//
// PyTorch records one LinalgSvdBackward0 node with three outputs. A
// MindTorch tensor knows its node but not an output slot of it, so U, S
// and Vh each get a node of their own, all named LinalgSvdBackward0, each
// computing svd_backward with its own gradient and the others absent.
// svd_backward is linear in (gU, gS, gVh), so the engine's sum of the
// three is PyTorch's gradient; what differs is that U.GradFn(), S.GradFn()
// and Vh.GradFn() are three nodes, not one.

const svdBackwardName = "LinalgSvdBackward0"

// LinalgSvd returns the singular value decomposition of t (..., m, n), as
// torch.linalg.svd(t, full_matrices): t = U diag(S) Vh, with S (..., k),
// k = min(m, n), the singular values in descending order, U (..., m, k)
// and Vh (..., k, n) with orthonormal columns and rows, or U (..., m, m)
// and Vh (..., n, n) when fullMatrices. t must be float32 or float64 (the
// CPU refuses float16 and bfloat16, as PyTorch's does) with at least 2
// dims; U and Vh are laid out as PyTorch's, each matrix column-major.
//
// Each pair (u_i, v_i) is unique only up to a common sign (and a rotation
// within the subspace of a repeated singular value): the CPU's signs are
// those of gonum's Dgesvd, which can differ from PyTorch's gesdd; U diag(S)
// Vh, |u_i| and |v_i| (distinct singular values) do not. A matrix with a
// NaN fails to converge, as in PyTorch; one with an infinity gives NaN.
//
// Gradients follow PyTorch's svd_backward, which assumes distinct
// singular values (and, through U of a tall or Vh of a wide input, no zero
// ones): otherwise gradients through U or Vh are NaN or infinite, as in
// PyTorch, while the gradient through S alone, U diag(gS) Vh, is always
// defined. With fullMatrices, the gradient sees only the first k columns
// of U and rows of Vh, as PyTorch's.
func (t *Tensor) LinalgSvd(fullMatrices bool) (U, S, Vh *Tensor) {
	if err := inputErr(kernel.OpSvd.String(), t); err != nil {
		f := failed(err)
		return f, f, f
	}
	mode := 0
	if fullMatrices {
		mode = kernel.SvdFull
	}
	outs, err := runSvd(t, mode)
	if err != nil {
		f := failed(err)
		return f, f, f
	}
	U, S, Vh = outs[0], outs[1], outs[2]
	if recording(t) {
		recordSvd(t, U, S, Vh, fullMatrices)
	}
	return U, S, Vh
}

// LinalgSvdvals returns the singular values of t (..., m, n) in descending
// order, (..., min(m, n)), as torch.linalg.svdvals. Its gradient is
// U diag(gS) Vh, defined whatever the singular values (the decomposition
// is then computed in full, as PyTorch does when its input requires
// gradients).
func (t *Tensor) LinalgSvdvals() *Tensor {
	const op = "linalg.svdvals"
	if err := inputErr(op, t); err != nil {
		return failed(err)
	}
	if !recording(t) {
		outs, err := runSvd(t, kernel.SvdValuesOnly)
		if err != nil {
			return renamed(op, []*Tensor{t}, failed(err))
		}
		return outs[0]
	}
	outs, err := runSvd(t, 0)
	if err != nil {
		return renamed(op, []*Tensor{t}, failed(err))
	}
	recordSvd(t, outs[0], outs[1], outs[2], false)
	return outs[1]
}

// Svd is torch.svd, the older interface: U, S and V with t = U diag(S) Vᵀ
// (V, not Vh). some (PyTorch's default true) gives the reduced U
// (..., m, k) and V (..., n, k), false the full ones. Without computeUV,
// U and V are zeros of shapes (..., m, m) and (..., n, n), as in PyTorch,
// and S has the gradient of LinalgSvdvals.
func (t *Tensor) Svd(some, computeUV bool) (U, S, V *Tensor) {
	const op = "svd"
	if err := inputErr(op, t); err != nil {
		f := failed(err)
		return f, f, f
	}
	if t.Dim() < 2 {
		f := t.fail(op, kernel.Errorf(ErrShape, "linalg.svd: input should have at least 2 dimensions, but has %d dimensions instead", t.Dim()))
		return f, f, f
	}
	if !computeUV {
		S = t.LinalgSvdvals()
		if S.err != nil {
			f := renamed(op, []*Tensor{t}, S)
			return f, f, f
		}
		nd := t.Dim()
		m, n := t.shape[nd-2], t.shape[nd-1]
		batch := t.shape[:nd-2]
		U = Zeros(append(append([]int(nil), batch...), m, m), WithDType(t.dtype), OnDevice(t.Device()))
		V = Zeros(append(append([]int(nil), batch...), n, n), WithDType(t.dtype), OnDevice(t.Device()))
		return U, S, V
	}
	U, S, Vh := t.LinalgSvd(!some)
	if U.err != nil {
		f := renamed(op, []*Tensor{t}, U)
		return f, f, f
	}
	return U, S, Vh.MT()
}

// runSvd runs linalg_svd on t with mode (kernel.SvdFull, SvdValuesOnly):
// U, S and Vh, or S alone.
func runSvd(t *Tensor, mode int) ([]*Tensor, error) {
	n := 3
	if mode&kernel.SvdValuesOnly != 0 {
		n = 1
	}
	c := dispatch.NewCall(kernel.OpSvd, t.Device(), 1, n)
	c.In[0] = t.operand()
	c.Mode = mode
	if err := dispatch.Run(c); err != nil {
		dispatch.Free(c)
		return nil, err
	}
	outs := make([]*Tensor, n)
	for i := range outs {
		outs[i] = result(c, i)
	}
	dispatch.Free(c)
	return outs, nil
}

// recordSvd records the nodes of t's decomposition U, S, Vh. svdvals
// records U's and Vh's too, although it does not return them: its
// derivative U diag(gS) Vh reads them, so that a second derivative
// (create_graph) goes through their nodes, as through PyTorch's outputs
// of the one node.
func recordSvd(t, U, S, Vh *Tensor, full bool) {
	s := []saved{saveOutput(U), saveOutput(S), saveOutput(Vh)}
	for i, y := range []*Tensor{U, S, Vh} {
		y.setGradFn(svdBackwardName, []*Tensor{t}, func(g *Tensor, _ []bool, create bool) []*Tensor {
			if g == nil {
				return []*Tensor{nil}
			}
			in, bad := getAll(s, create, svdBackwardName)
			if bad != nil {
				return []*Tensor{bad}
			}
			var gs [3]*Tensor
			gs[i] = g
			return []*Tensor{fitGrad(svdBackward(gs[0], gs[1], gs[2], in[0], in[1], in[2], full), t)}
		})
	}
}

// svdBackward is PyTorch's svd_backward for real inputs: the gradient of A
// = U diag(S) Vh from those of U, S and Vh (nil when absent), after
// narrowing full U and Vh (and their gradients) to their first k columns
// and rows as PyTorch's derivative of linalg_svd does. With E_jk = S_k² -
// S_j² (1 on the diagonal) and skew(X) = X - Xᵀ:
//
//	gA = U [(skew(Uᵀ gU) S + S skew(Vᵀ gV)) / E + diag(gS)] Vh
//	     + (I - U Uᵀ) gU S⁻¹ Vh      (m > n)
//	     + U S⁻¹ gVh (I - Vᵀ V)      (m < n)
//
// Repeated singular values make E zero off the diagonal, and gradients
// through U or Vh NaN or infinite, as PyTorch's.
func svdBackward(gU, gS, gVh, U, S, Vh *Tensor, full bool) *Tensor {
	k := S.shape[S.Dim()-1]
	if full {
		U, Vh = U.Narrow(-1, 0, k), Vh.Narrow(-2, 0, k)
		if gU != nil {
			gU = gU.Narrow(-1, 0, k)
		}
		if gVh != nil {
			gVh = gVh.Narrow(-2, 0, k)
		}
	}
	m, n := U.shape[U.Dim()-2], Vh.shape[Vh.Dim()-1]
	if gU == nil && gVh == nil {
		if gS == nil {
			return nil
		}
		if m >= n {
			return U.MatMul(gS.Unsqueeze(-1).Mul(Vh))
		}
		return U.Mul(gS.Unsqueeze(-2)).MatMul(Vh)
	}
	skew := func(x *Tensor) *Tensor { return x.Sub(x.MT()) }
	S2 := S.Mul(S)
	E := S2.Unsqueeze(-2).Sub(S2.Unsqueeze(-1)).Add(Eye(k, WithDType(S.dtype), OnDevice(S.Device())))
	var gA *Tensor
	switch {
	case gU != nil && gVh != nil:
		UhgU, VhgV := skew(U.MT().MatMul(gU)), skew(Vh.MatMul(gVh.MT()))
		gA = UhgU.Mul(S.Unsqueeze(-2)).Add(S.Unsqueeze(-1).Mul(VhgV)).Div(E)
	case gU != nil:
		gA = skew(U.MT().MatMul(gU)).Div(E).Mul(S.Unsqueeze(-2))
	default:
		gA = S.Unsqueeze(-1).Mul(skew(Vh.MatMul(gVh.MT())).Div(E))
	}
	if gS != nil {
		gA = gA.Add(gS.DiagEmbed(0, -2, -1))
	}
	switch {
	case m > n && gU != nil:
		gA = U.MatMul(gA)
		gUSinv := gU.Div(S.Unsqueeze(-2))
		gA = gA.Add(gUSinv).Sub(U.MatMul(U.MT().MatMul(gUSinv)))
		return gA.MatMul(Vh)
	case m < n && gVh != nil:
		gA = gA.MatMul(Vh)
		SinvgVh := gVh.Div(S.Unsqueeze(-1))
		gA = gA.Add(SinvgVh).Sub(SinvgVh.MatMul(Vh.MT()).MatMul(Vh))
		return U.MatMul(gA)
	case m >= n:
		return U.MatMul(gA.MatMul(Vh))
	}
	return U.MatMul(gA).MatMul(Vh)
}
