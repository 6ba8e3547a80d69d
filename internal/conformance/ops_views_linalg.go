package conformance

import (
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The ops of testdata/views_linalg.json (scripts/golden/views_linalg.py):
// the views diagonal, unfold, movedim and the transpose aliases, and the
// linear algebra composed of the products.
func init() {
	for name, f := range map[string]Func{
		"diagonal": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(in[0].Diagonal(a.I("offset"), a.I("dim1"), a.I("dim2")))
		},
		"diag_embed": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(in[0].DiagEmbed(a.I("offset"), a.I("dim1"), a.I("dim2")))
		},
		"unfold": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(in[0].Unfold(a.I("dim"), a.I("size"), a.I("step")))
		},
		"movedim": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(in[0].Movedim(a.Ints("src"), a.Ints("dst")))
		},
		"moveaxis": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(in[0].Moveaxis(a.Ints("src"), a.Ints("dst")))
		},
		"swapaxes": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Swapaxes(a.I("a"), a.I("b"))) },
		"swapdims": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Swapdims(a.I("a"), a.I("b"))) },
		"fliplr":   func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Fliplr()) },
		"flipud":   func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Flipud()) },
		"trace":    func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Trace()) },
		"kron":     func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Kron(in[1])) },
		"tensordot": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(in[0].Tensordot(in[1], a.Ints("dims_a"), a.Ints("dims_b")))
		},
		"tensordot_n": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].TensordotN(in[1], a.I("n"))) },
		"einsum":      func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(torch.Einsum(a.S("equation"), in...)) },
		"cross":       func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Cross(in[1], a.I("dim"))) },
		"cross_default": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(in[0].CrossDefault(in[1]))
		},
		"addmv": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(torch.Addmv(in[0], in[1], in[2], scalarArg(a["beta"]), scalarArg(a["alpha"])))
		},
		"addr": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(torch.Addr(in[0], in[1], in[2], scalarArg(a["beta"]), scalarArg(a["alpha"])))
		},
		"vector_norm": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(in[0].LinalgVectorNorm(a.F("ord"), a.Ints("dims"), a.B("keepdim")))
		},
		"matrix_norm": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			d := a.Ints("dims")
			ord := any(a.F("ord"))
			if s := a.S("ord"); s != "" && !isSpecialFloat(s) {
				ord = s
			}
			return One(in[0].LinalgMatrixNorm(ord, [2]int{d[0], d[1]}, a.B("keepdim")))
		},
	} {
		Register(name, f)
	}
}
