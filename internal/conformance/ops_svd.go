package conformance

import (
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The ops of testdata/svd.json (scripts/golden/svd.py): the singular value
// decomposition and the norms made of singular values. Singular vectors
// are unique only up to the sign of each pair (u_i, v_i), and MindTorch's
// signs need not be PyTorch's, so the decomposition's cases compare what
// does not depend on them (the Python side computes the same outputs):
// S, |U| and |Vh| over the first k = min(m, n) columns and rows, the Gram
// matrices Uᵀ U and Vh Vhᵀ, and the reconstruction U diag(S) Vh.
// matrix_norm (with ord "nuc", 2 and -2) is registered with the views and
// linear algebra ops.
func init() {
	for name, f := range map[string]Func{
		"svdvals": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].LinalgSvdvals()) },
		"linalg_svd": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return svdInvariants(in[0].LinalgSvd(a.B("full_matrices")))
		},
		"linalg_svd_raw": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			u, s, vh := in[0].LinalgSvd(a.B("full_matrices"))
			return []*torch.Tensor{u, s, vh}
		},
		"linalg_svd_gram": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			u, s, vh := in[0].LinalgSvd(a.B("full_matrices"))
			if err := firstErr(u, s, vh); err != nil {
				return One(err)
			}
			k := s.Shape()[s.Dim()-1]
			rec := u.Narrow(-1, 0, k).Mul(s.Unsqueeze(-2)).MatMul(vh.Narrow(-2, 0, k))
			return []*torch.Tensor{s, u.MT().MatMul(u), vh.MatMul(vh.MT()), rec}
		},
		"svd": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			u, s, v := in[0].Svd(a.B("some"), a.B("compute_uv"))
			if !a.B("compute_uv") {
				return []*torch.Tensor{s, u, v}
			}
			if err := firstErr(u, s, v); err != nil {
				return One(err)
			}
			k := s.Shape()[s.Dim()-1]
			return []*torch.Tensor{s, u.Narrow(-1, 0, k).Abs(), v.Narrow(-1, 0, k).Abs(), u.MT().MatMul(u), v.MT().MatMul(v)}
		},
		"svd_abs_u": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			u, s, _ := in[0].LinalgSvd(a.B("full_matrices"))
			if err := firstErr(u, s); err != nil {
				return One(err)
			}
			return One(u.Narrow(-1, 0, s.Shape()[s.Dim()-1]).Abs())
		},
		"svd_abs_vh": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			_, s, vh := in[0].LinalgSvd(a.B("full_matrices"))
			if err := firstErr(s, vh); err != nil {
				return One(err)
			}
			return One(vh.Narrow(-2, 0, s.Shape()[s.Dim()-1]).Abs())
		},
		"svd_reconstruct": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			u, s, vh := in[0].LinalgSvd(a.B("full_matrices"))
			if err := firstErr(u, s, vh); err != nil {
				return One(err)
			}
			k := s.Shape()[s.Dim()-1]
			return One(u.Narrow(-1, 0, k).Mul(s.Unsqueeze(-2)).MatMul(vh.Narrow(-2, 0, k)))
		},
		"norm_nuc": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			var dims []int
			if a.Has("dims") {
				dims = a.Ints("dims")
			}
			if a.B("keepdim") {
				return One(in[0].NormNucKeepDim(dims...))
			}
			return One(in[0].NormNuc(dims...))
		},
	} {
		Register(name, f)
	}
}

// svdInvariants are the outputs of a decomposition that do not depend on
// the signs of the singular vectors: S, |U| and |Vh| over the first k
// columns and rows, Uᵀ U and Vh Vhᵀ.
func svdInvariants(u, s, vh *torch.Tensor) []*torch.Tensor {
	if err := firstErr(u, s, vh); err != nil {
		return One(err)
	}
	k := s.Shape()[s.Dim()-1]
	return []*torch.Tensor{s, u.Narrow(-1, 0, k).Abs(), vh.Narrow(-2, 0, k).Abs(), u.MT().MatMul(u), vh.MatMul(vh.MT())}
}

// firstErr returns the first of ts that failed, or nil.
func firstErr(ts ...*torch.Tensor) *torch.Tensor {
	for _, t := range ts {
		if t.Err() != nil {
			return t
		}
	}
	return nil
}
