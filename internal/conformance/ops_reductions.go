package conformance

import (
	"github.com/mindtorch/mindtorch/pkg/dtype"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The ops of testdata/reductions.json (scripts/golden/reductions.py).
func init() {
	two := func(a, b *torch.Tensor) []*torch.Tensor { return []*torch.Tensor{a, b} }
	ops := map[string]Func{
		"nansum":  reduce((*torch.Tensor).Nansum, (*torch.Tensor).NansumKeepDim),
		"nanmean": reduce((*torch.Tensor).Nanmean, (*torch.Tensor).NanmeanKeepDim),
		"var_mean": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return two(in[0].VarMean(a.F("correction"), a.B("keepdim"), a.Ints("dims")...))
		},
		"std_mean": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return two(in[0].StdMean(a.F("correction"), a.B("keepdim"), a.Ints("dims")...))
		},
		"aminmax": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			var dim *int
			if a.Has("dim") {
				d := a.I("dim")
				dim = &d
			}
			return two(in[0].Aminmax(dim, a.B("keepdim")))
		},
		"median":    func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Median()) },
		"nanmedian": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Nanmedian()) },
		"median_dim": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return two(in[0].MedianDim(a.I("dim"), a.B("keepdim")))
		},
		"nanmedian_dim": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return two(in[0].NanmedianDim(a.I("dim"), a.B("keepdim")))
		},
		"kthvalue": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return two(in[0].Kthvalue(a.I("k"), a.I("dim"), a.B("keepdim")))
		},
		"mode": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return two(in[0].Mode(a.I("dim"), a.B("keepdim")))
		},
		"cummax":       func(in []*torch.Tensor, a Args) []*torch.Tensor { return two(in[0].Cummax(a.I("dim"))) },
		"cummin":       func(in []*torch.Tensor, a Args) []*torch.Tensor { return two(in[0].Cummin(a.I("dim"))) },
		"logcumsumexp": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Logcumsumexp(a.I("dim"))) },
		"cumsum_dtype": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(in[0].CumsumDType(argDType(a), a.I("dim")))
		},
		"cumprod_dtype": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(in[0].CumprodDType(argDType(a), a.I("dim")))
		},
		"softmax_dtype": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(in[0].SoftmaxDType(argDType(a), a.I("dim")))
		},
		"log_softmax_dtype": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(in[0].LogSoftmaxDType(argDType(a), a.I("dim")))
		},
		"prod_dtype": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(in[0].ProdDType(argDType(a), a.B("keepdim"), a.Ints("dims")...))
		},
		"sum_dtype": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(in[0].SumDType(argDType(a), a.B("keepdim"), a.Ints("dims")...))
		},
		"mean_dtype": func(in []*torch.Tensor, a Args) []*torch.Tensor {
			return One(in[0].MeanDType(argDType(a), a.B("keepdim"), a.Ints("dims")...))
		},
	}
	for name, f := range ops {
		Register(name, f)
	}
}

// argDType is the "dtype" argument (e.g. "float32"); an unknown name
// gives an invalid dtype, which the op refuses.
func argDType(a Args) dtype.DType {
	d, err := dtype.Parse(a.S("dtype"))
	if err != nil {
		return dtype.DType(255)
	}
	return d
}
