package conformance

import (
	"encoding/json"
	"strings"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// dataOps are the ops of testdata/data.json (scripts/golden/data.py).
var dataOps = map[string]Func{
	"take": func(in []*torch.Tensor, a Args) []*torch.Tensor { return One(in[0].Take(in[1])) },
	"masked_scatter": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].MaskedScatter(in[1], in[2]))
	},
	"masked_scatter_": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].Clone().MaskedScatter_(in[1], in[2]))
	},
	"Tensor.index_fill": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].IndexFill(a.I("dim"), in[1], Scalar(a["value"])))
	},
	"Tensor.index_fill_": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].Clone().IndexFill_(a.I("dim"), in[1], Scalar(a["value"])))
	},
	"Tensor.index_fill_tensor": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].IndexFill(a.I("dim"), in[1], in[2]))
	},
	"Tensor.index_copy": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].IndexCopy(a.I("dim"), in[1], in[2]))
	},
	"Tensor.index_copy_": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].Clone().IndexCopy_(a.I("dim"), in[1], in[2]))
	},
	"searchsorted_opts": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		o := torch.SearchsortedOptions{Right: a.B("right"), Side: a.S("side"), OutInt32: a.B("out_int32")}
		if a.B("sorter") {
			o.Sorter = in[2]
		}
		return One(torch.SearchsortedWith(in[0], in[1], o))
	},
	"searchsorted_scalar": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(torch.SearchsortedScalar(in[0], Scalar(a["value"]), torch.SearchsortedOptions{Right: a.B("right")}))
	},
	"bucketize": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(torch.Bucketize(in[0], in[1], a.B("right"), a.B("out_int32")))
	},
	"bucketize_scalar": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(torch.BucketizeScalar(Scalar(a["value"]), in[0], a.B("right"), a.B("out_int32")))
	},
	"unique_consecutive": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		var dim *int
		if a.Has("dim") {
			d := a.I("dim")
			dim = &d
		}
		v, i, c := in[0].UniqueConsecutive(true, true, dim)
		return []*torch.Tensor{v, i, c}
	},
	"unique_dim": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		v, i, c := in[0].UniqueDim(a.I("dim"), true, true)
		return []*torch.Tensor{v, i, c}
	},
	"unique_unsorted": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		v, i, c := in[0].UniqueWith(false)
		return []*torch.Tensor{v, i, c}
	},
	"nonzero_tuple": func(in []*torch.Tensor, a Args) []*torch.Tensor { return tuple(in[0].NonzeroTuple()) },
	"where_cond":    func(in []*torch.Tensor, a Args) []*torch.Tensor { return tuple(torch.WhereCond(in[0])) },
	"where_scalar": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(torch.WhereScalar(in[0], operand(in, a["a"]), operand(in, a["b"])))
	},
	"masked_fill_tensor": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].MaskedFillTensor(in[1], in[2]))
	},
	"repeat_interleave_tensor": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		var dim *int
		if a.Has("dim") {
			d := a.I("dim")
			dim = &d
		}
		return One(in[0].RepeatInterleaveTensor(in[1], dim))
	},
	"repeat_interleave_flat": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(in[0].RepeatInterleaveFlat(a.I("repeats")))
	},
	"repeat_interleave_index": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		return One(torch.RepeatInterleaveIndex(in[0]))
	},
	"at":      atCase,
	"at_mask": atCase,
	"set_at": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		items, used := indexSpec(in, a)
		y := in[0].Clone()
		var v any
		if a.Has("value") {
			v = Scalar(a["value"])
		} else {
			v = in[used]
		}
		return One(y.SetAt(v, items...))
	},
	"put_at": func(in []*torch.Tensor, a Args) []*torch.Tensor {
		items, used := indexSpec(in, a)
		return One(in[0].Clone().IndexPutAt_(items, in[used], a.B("accumulate")))
	},
}

func init() {
	for name, f := range dataOps {
		Register(name, f)
	}
	// The ops whose output shape depends on the values: the meta device
	// refuses them.
	for _, name := range []string{"unique_consecutive", "unique_dim", "unique_unsorted", "nonzero_tuple", "where_cond",
		"repeat_interleave_tensor", "repeat_interleave_index", "at_mask"} {
		dataDependent[name] = true
	}
}

func atCase(in []*torch.Tensor, a Args) []*torch.Tensor {
	items, _ := indexSpec(in, a)
	return One(in[0].At(items...))
}

// indexSpec reads args["spec"] (see data.py) into At's items, and returns
// the number of inputs it uses (x and the index tensors).
func indexSpec(in []*torch.Tensor, a Args) ([]any, int) {
	spec, _ := a["spec"].([]any)
	items := make([]any, len(spec))
	used := 1
	for i, e := range spec {
		entry := e.([]any)
		switch entry[0].(string) {
		case "int":
			items[i] = int(Num(entry[1]))
		case "slice":
			start, stop, step := 0, int(^uint(0)>>1), 1
			if entry[1] != nil {
				start = int(Num(entry[1]))
			}
			if entry[2] != nil {
				stop = int(Num(entry[2]))
			}
			if entry[3] != nil {
				step = int(Num(entry[3]))
			}
			items[i] = torch.Slice(start, stop, step)
		case "none":
			items[i] = torch.NewAxis
		case "ellipsis":
			items[i] = torch.Ellipsis
		case "bool":
			items[i] = entry[1].(bool)
		case "tensor":
			k := int(Num(entry[1]))
			items[i] = torch.Idx(in[k])
			used = max(used, k+1)
		}
	}
	return items, used
}

// Scalar is a JSON number or bool as a Go scalar: an int when written
// without a fraction, else a float64.
func Scalar(v any) any {
	switch x := v.(type) {
	case bool:
		return x
	case json.Number:
		if !strings.ContainsAny(string(x), ".eE") {
			n, _ := x.Int64()
			return int(n)
		}
	}
	return Num(v)
}

// operand is a where operand: {"input": k} names an input, else a scalar.
func operand(in []*torch.Tensor, v any) any {
	if m, ok := v.(map[string]any); ok {
		return in[int(Num(m["input"]))]
	}
	return Scalar(v)
}

// tuple is the outputs of an op returning a list of tensors, or its error.
func tuple(ts []*torch.Tensor, err error) []*torch.Tensor {
	if err != nil {
		return One(torch.Failed(err))
	}
	return ts
}
