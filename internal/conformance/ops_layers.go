package conformance

import (
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The ops of testdata/layers.json (scripts/golden/layers.py): the layers
// of pkg/nn under the names of torch.nn.functional. Optional inputs are
// listed by the args' "present" flags; the batch and instance norms give
// their output then the running stats they updated.
func init() {
	Register("batch_norm", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		x, rm, rv, w, b := optional(in, a)
		y := nn.BatchNorm(x, rm, rv, w, b, a.B("training"), a.F("momentum"), a.F("eps"))
		return appendPresent([]*torch.Tensor{y}, rm, rv)
	})
	Register("instance_norm", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		x, rm, rv, w, b := optional(in, a)
		y := nn.InstanceNorm(x, rm, rv, w, b, a.B("use_input_stats"), a.F("momentum"), a.F("eps"))
		return appendPresent([]*torch.Tensor{y}, rm, rv)
	})
	Register("group_norm", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		var w, b *torch.Tensor
		if len(in) > 1 {
			w, b = in[1], in[2]
		}
		return One(nn.GroupNormF(in[0], a.I("groups"), w, b, a.F("eps")))
	})
	Register("rms_norm", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		var w *torch.Tensor
		if len(in) > 1 {
			w = in[1]
		}
		return One(nn.RMSNormF(in[0], a.Ints("shape"), w, floatOrNil(a, "eps")))
	})
	Register("embedding_options", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		y := nn.EmbeddingF(in[0], in[1], embeddingOptions(a))
		if a.Has("max_norm") {
			return []*torch.Tensor{y, in[1]}
		}
		return One(y)
	})
	Register("embedding_bag", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		rest := in[2:]
		var offsets, psw *torch.Tensor
		if a.B("has_offsets") {
			offsets, rest = rest[0], rest[1:]
		}
		if a.B("has_psw") {
			psw = rest[0]
		}
		return One(nn.EmbeddingBagF(in[0], in[1], offsets, psw, a.S("mode"), embeddingOptions(a)))
	})
	Register("interpolate", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		var sf []float64
		if v, ok := a["scale_factor"].([]any); ok {
			for _, f := range v {
				sf = append(sf, Num(f))
			}
		}
		var size []int
		if a.Has("size") {
			size = a.Ints("size")
		}
		return One(nn.Interpolate(in[0], size, sf, a.S("mode"), a.B("align_corners")))
	})
	Register("pad", func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(nn.Pad(in[0], a.Ints("pad"), a.S("mode"), a.F("value")))
	})
	Register("prelu", func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(nn.PReLUF(in[0], in[1])) })
	Register("glu", func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(nn.GLUF(in[0], a.I("dim"))) })
}

// optional spreads the inputs x, running mean, running var, weight and
// bias by the flags "present" (running stats, running stats, affine, affine).
func optional(in []*torch.Tensor, a Args) (x, rm, rv, w, b *torch.Tensor) {
	flags, _ := a["present"].([]any)
	out := make([]*torch.Tensor, 4)
	k := 1
	for i, f := range flags {
		if on, _ := f.(bool); on && i < 4 && k < len(in) {
			out[i], k = in[k], k+1
		}
	}
	return in[0], out[0], out[1], out[2], out[3]
}

// appendPresent appends the tensors that are not nil.
func appendPresent(outs []*torch.Tensor, ts ...*torch.Tensor) []*torch.Tensor {
	for _, t := range ts {
		if t != nil {
			outs = append(outs, t)
		}
	}
	return outs
}

func floatOrNil(a Args, k string) *float64 {
	if !a.Has(k) {
		return nil
	}
	v := a.F(k)
	return &v
}

func embeddingOptions(a Args) nn.EmbeddingOptions {
	o := nn.EmbeddingOptions{MaxNorm: floatOrNil(a, "max_norm")}
	if a.Has("norm_type") {
		o.NormType = a.F("norm_type")
	}
	if a.Has("padding_idx") {
		p := a.I("padding_idx")
		o.PaddingIdx = &p
	}
	return o
}
