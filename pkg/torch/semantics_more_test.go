package torch_test

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"testing"

	goldenfile "github.com/mindtorch/mindtorch/internal/golden"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// specialNum is a golden value that may be NaN, infinite or -0: a JSON
// number, or "nan", "inf", "-inf", "-0".
type specialNum float64

func (v *specialNum) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case `"nan"`:
		*v = specialNum(math.NaN())
	case `"inf"`:
		*v = specialNum(math.Inf(1))
	case `"-inf"`:
		*v = specialNum(math.Inf(-1))
	case `"-0"`:
		*v = specialNum(math.Copysign(0, -1))
	default:
		var f float64
		if err := json.Unmarshal(b, &f); err != nil {
			return err
		}
		*v = specialNum(f)
	}
	return nil
}

// specialTensor is semantics.py's enc_special.
type specialTensor struct {
	Shape []int        `json:"shape"`
	DType string       `json:"dtype"`
	Data  []specialNum `json:"data"`
}

var dtypeByName = map[string]torch.DType{
	"bool": torch.Bool, "uint8": torch.Uint8, "int8": torch.Int8, "int16": torch.Int16, "int32": torch.Int32,
	"int64": torch.Int64, "float16": torch.Float16, "bfloat16": torch.BFloat16, "float32": torch.Float32,
	"float64": torch.Float64,
}

// tensor makes the tensor on dev, with its dtype.
func (g specialTensor) tensor(dev string) *torch.Tensor {
	v := make([]float64, len(g.Data))
	for i, x := range g.Data {
		v[i] = float64(x)
	}
	return torch.FromSlice(v, torch.WithShape(g.Shape...), torch.WithDevice(dev)).ToDType(dtypeByName[g.DType])
}

// checkSpecial compares y with want exactly (dtype, shape, values with
// NaN and the sign of zero); on the meta device only dtype and shape.
func checkSpecial(t *testing.T, name string, y *torch.Tensor, want specialTensor) {
	t.Helper()
	if err := y.Err(); err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if y.DType() != dtypeByName[want.DType] || !slices.Equal(y.Shape(), want.Shape) {
		t.Errorf("%s: %v %v, want PyTorch's %s %v", name, y.DType(), y.Shape(), want.DType, want.Shape)
		return
	}
	if y.Device().String() == "meta" {
		return
	}
	got, err := torch.ToSlice[float64](y.ToDType(torch.Float64))
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	for i := range got {
		if !sameBits(got[i], float64(want.Data[i])) { // exactness_test.go's: NaN for NaN, the sign of zero
			t.Errorf("%s: [%d] = %v, want PyTorch's %v (got %v, want %v)", name, i, got[i], want.Data[i], got, want.Data)
			return
		}
	}
}

type semanticsMoreGolden struct {
	Values []struct {
		Name, Expr string
		Out        []specialTensor
	} `json:"values"`
	Sorts []struct {
		Input              specialTensor
		Descending, Stable bool
		Values, Indices    specialTensor
	} `json:"sorts"`
	Rounds []struct {
		DType    string `json:"dtype"`
		Decimals int
		Input    *specialTensor
		Out      *specialTensor
		GradFn   string `json:"grad_fn"`
		Grad     *specialTensor
	} `json:"rounds"`
	Strided []struct {
		Input, Op string
		Strides   []int
		Out       goldenfile.Tensor
	} `json:"strided"`
}

func loadSemanticsMore(t *testing.T) *semanticsMoreGolden {
	t.Helper()
	var g semanticsMoreGolden
	if err := goldenfile.Load("semantics.json", &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

var (
	nan = math.NaN()
	inf = math.Inf(1)
	nz  = math.Copysign(0, -1)
)

// fl makes a float32 tensor of v on dev; both returns a pair as a slice.
func fl(dev string, v ...float64) *torch.Tensor {
	return on(dev, v).ToDType(torch.Float32)
}

func both(a, b *torch.Tensor) []*torch.Tensor { return []*torch.Tensor{a, b} }

func one(a *torch.Tensor) []*torch.Tensor { return []*torch.Tensor{a} }

// valueCases are the Go twins of semantics.py's VALUES.
var valueCases = map[string]func(d string) []*torch.Tensor{
	"clamp_nan_min_both": func(d string) []*torch.Tensor { return one(fl(d, 1, 2, nan, -1).Clamp(nan, 1.0)) },
	"clamp_nan_max_both": func(d string) []*torch.Tensor { return one(fl(d, 1, 2, nan, -1).Clamp(0.0, nan)) },
	"clamp_nan_min_only": func(d string) []*torch.Tensor { return one(fl(d, 1, 2, nan, -1).Clamp(nan, nil)) },
	"clamp_nan_max_only": func(d string) []*torch.Tensor { return one(fl(d, 1, 2, nan, -1).Clamp(nil, nan)) },
	"clamp_nan_long":     func(d string) []*torch.Tensor { return one(int64s(d, 1, 2).Clamp(nan, 1.0)) },
	"clamp_nan_double":   func(d string) []*torch.Tensor { return one(on(d, []float64{1, 2}).Clamp(0, nan)) },
	"clamp_tensor_nan": func(d string) []*torch.Tensor {
		return one(fl(d, 1, 2, 5).ClampTensor(fl(d, nan, 0, 0), fl(d, 3, nan, 4)))
	},
	"clamp_zero":         func(d string) []*torch.Tensor { return one(fl(d, nz, 0).Clamp(0.0, nil)) },
	"max_nan":            func(d string) []*torch.Tensor { return one(fl(d, 1, nan, 3).Amax()) },
	"min_nan":            func(d string) []*torch.Tensor { return one(fl(d, 1, nan, -3).Amin()) },
	"max_all_nan":        func(d string) []*torch.Tensor { return one(fl(d, 1, nan, 3).Max()) },
	"maxdim_nan":         func(d string) []*torch.Tensor { return both(fl(d, 1, nan, 3, nan).Reshape(1, 4).MaxDim(1, false)) },
	"mindim_nan":         func(d string) []*torch.Tensor { return both(fl(d, 1, nan, -3, nan).Reshape(1, 4).MinDim(1, false)) },
	"argmax_nan":         func(d string) []*torch.Tensor { return one(fl(d, 1, nan, 3, nan).Argmax()) },
	"argmin_nan":         func(d string) []*torch.Tensor { return one(fl(d, 1, nan, -3, nan).Argmin()) },
	"argmax_inf":         func(d string) []*torch.Tensor { return one(fl(d, 1, inf, 3, inf).Argmax()) },
	"sort_nan":           func(d string) []*torch.Tensor { return both(fl(d, nan, 1, -inf, nan, inf, 0).Sort(0, false)) },
	"sort_nan_desc":      func(d string) []*torch.Tensor { return both(fl(d, nan, 1, -inf, nan, inf, 0).Sort(0, true)) },
	"topk_nan":           func(d string) []*torch.Tensor { return both(fl(d, nan, 1, -inf, nan, inf, 0).Topk(3, 0, true)) },
	"topk_nan_smallest":  func(d string) []*torch.Tensor { return both(fl(d, nan, 1, -inf, nan, inf, 0).Topk(3, 0, false)) },
	"median_nan":         func(d string) []*torch.Tensor { return one(fl(d, 1, nan, 3).Median()) },
	"kthvalue_nan":       func(d string) []*torch.Tensor { return both(fl(d, 1, nan, 3).Kthvalue(3, 0, false)) },
	"cummax_nan":         func(d string) []*torch.Tensor { return both(fl(d, 1, nan, 3).Cummax(0)) },
	"unique_nan":         func(d string) []*torch.Tensor { u, _, _ := fl(d, nan, 1, nan).Unique(); return one(u) },
	"logsumexp_inf":      func(d string) []*torch.Tensor { return one(fl(d, inf, inf).LogSumExp(0)) },
	"logsumexp_ninf":     func(d string) []*torch.Tensor { return one(fl(d, -inf, -inf).LogSumExp(0)) },
	"maxdim_zero":        func(d string) []*torch.Tensor { return both(fl(d, nz, 0).Reshape(1, 2).MaxDim(1, false)) },
	"mindim_zero":        func(d string) []*torch.Tensor { return both(fl(d, 0, nz).Reshape(1, 2).MinDim(1, false)) },
	"amax_zero":          func(d string) []*torch.Tensor { return one(fl(d, nz, 0).Amax()) },
	"amin_zero":          func(d string) []*torch.Tensor { return one(fl(d, 0, nz).Amin()) },
	"argmax_zero":        func(d string) []*torch.Tensor { return one(fl(d, nz, 0).Argmax()) },
	"sort_zero":          func(d string) []*torch.Tensor { return both(fl(d, 0, nz, 0, nz).SortStable(0, false, true)) },
	"maximum_zero":       func(d string) []*torch.Tensor { return one(fl(d, nz, 0).Maximum(fl(d, 0, nz))) },
	"minimum_zero":       func(d string) []*torch.Tensor { return one(fl(d, nz, 0).Minimum(fl(d, 0, nz))) },
	"sum_negzero":        func(d string) []*torch.Tensor { return one(fl(d, nz, nz).Sum()) },
	"prod_negzero":       func(d string) []*torch.Tensor { return one(fl(d, nz, 1).Prod()) },
	"cumsum_negzero":     func(d string) []*torch.Tensor { return one(fl(d, nz, nz).Cumsum(0)) },
	"relu_negzero":       func(d string) []*torch.Tensor { return one(fl(d, nz).Relu()) },
	"round_negzero":      func(d string) []*torch.Tensor { return one(fl(d, -0.4, -0.5, 0.5, 1.5, 2.5).Round()) },
	"mode_zero":          func(d string) []*torch.Tensor { return both(fl(d, 0, nz, nz).Mode(0, false)) },
	"sum_int64_wraps":    func(d string) []*torch.Tensor { return one(int64s(d, 1<<62, 1<<62, 1<<62).Sum()) },
	"prod_int64_wraps":   func(d string) []*torch.Tensor { return one(int64s(d, 1<<40, 1<<40).Prod()) },
	"cumsum_int64_wraps": func(d string) []*torch.Tensor { return one(int64s(d, 1<<62, 1<<62).Cumsum(0)) },
	"sum_int8":           func(d string) []*torch.Tensor { return one(ofDType(torch.Int8, d, 100, 100).Sum()) },
	"sum_uint8":          func(d string) []*torch.Tensor { return one(ofDType(torch.Uint8, d, 200, 200).Sum()) },
	"prod_int32":         func(d string) []*torch.Tensor { return one(ofDType(torch.Int32, d, 1<<20, 1<<20).Prod()) },
	"cumsum_int8":        func(d string) []*torch.Tensor { return one(ofDType(torch.Int8, d, 100, 100).Cumsum(0)) },
	"cumprod_int8":       func(d string) []*torch.Tensor { return one(ofDType(torch.Int8, d, 100, 100).Cumprod(0)) },
	"sum_int8_as_int8": func(d string) []*torch.Tensor {
		return one(ofDType(torch.Int8, d, 100, 100).SumDType(torch.Int8, false))
	},
	"arange_int8_wraps": func(d string) []*torch.Tensor {
		return one(torch.ArangeRange(0, 300, 100, torch.WithDType(torch.Int8), torch.WithDevice(d)))
	},
	"sum_empty":       func(d string) []*torch.Tensor { return one(fl(d).Sum()) },
	"prod_empty":      func(d string) []*torch.Tensor { return one(fl(d).Prod()) },
	"mean_empty":      func(d string) []*torch.Tensor { return one(fl(d).Mean()) },
	"std_empty":       func(d string) []*torch.Tensor { return one(fl(d).Std()) },
	"var_empty":       func(d string) []*torch.Tensor { return one(fl(d).Var()) },
	"logsumexp_empty": func(d string) []*torch.Tensor { return one(fl(d).LogSumExp(0)) },
	"all_empty":       func(d string) []*torch.Tensor { return one(fl(d).All()) },
	"any_empty":       func(d string) []*torch.Tensor { return one(fl(d).Any()) },
	"median_empty":    func(d string) []*torch.Tensor { return one(fl(d).Median()) },
	"mean_empty_dim":  func(d string) []*torch.Tensor { return one(emptyOn(d, 0, 3).Mean(0)) },
	"std_one":         func(d string) []*torch.Tensor { return one(fl(d, 1).Std()) },
}

// NaN, infinities, the sign of zero, integer overflow and empty inputs
// give PyTorch's values (and dtypes and shapes, on the meta device too).
func TestSemanticsValues(t *testing.T) {
	g := loadSemanticsMore(t)
	for _, c := range g.Values {
		f := valueCases[c.Name]
		if f == nil {
			t.Errorf("%s: no Go twin", c.Name)
			continue
		}
		for _, dev := range devices {
			if dev == "meta" && c.Name == "unique_nan" {
				continue // its shape depends on the data, which meta tensors lack
			}
			ys := f(dev)
			if len(ys) != len(c.Out) {
				t.Errorf("%s: %d results, want %d", c.Name, len(ys), len(c.Out))
				continue
			}
			for i, y := range ys {
				checkSpecial(t, fmt.Sprintf("%s[%d] on %s (%s)", c.Name, i, dev, c.Expr), y, c.Out[i])
			}
		}
	}
}

// SortStable gives PyTorch's values and indices: equal elements in index
// order when stable, where PyTorch 1.13's std::sort leaves them when not.
func TestSemanticsSortStable(t *testing.T) {
	g := loadSemanticsMore(t)
	if len(g.Sorts) == 0 {
		t.Fatal("no sort cases")
	}
	for _, c := range g.Sorts {
		for _, dev := range devices {
			x := c.Input.tensor(dev)
			name := fmt.Sprintf("sort %s%v descending=%v stable=%v on %s", c.Input.DType, c.Input.Shape, c.Descending, c.Stable, dev)
			v, i := x.SortStable(1, c.Descending, c.Stable)
			checkSpecial(t, name+" values", v, c.Values)
			checkSpecial(t, name+" indices", i, c.Indices)
			if c.Stable {
				checkSpecial(t, name+" Sort", first(x.Sort(1, c.Descending)), c.Values)
			}
			checkSpecial(t, name+" ArgsortStable", x.ArgsortStable(1, c.Descending, c.Stable), c.Indices)
		}
	}
}

// RoundDecimals is PyTorch's round(decimals=n) bit for bit, for every
// floating dtype (float16 by 2.x's kernel, which 1.13 lacks), in place and
// into an output too; its gradient is 0, recorded as RoundBackward1.
func TestSemanticsRoundDecimals(t *testing.T) {
	g := loadSemanticsMore(t)
	for _, c := range g.Rounds {
		if c.Input == nil {
			x := torch.FromSlice([]float32{1.2345, 2.5}).RequiresGrad_(true)
			y := x.RoundDecimals(2)
			if y.GradFn() == nil || y.GradFn().Name() != c.GradFn {
				t.Errorf("grad_fn %v, PyTorch's %s", y.GradFn(), c.GradFn)
			}
			if err := y.Mul(torch.FromSlice([]float32{1, 2})).Sum().Backward(); err != nil {
				t.Fatal(err)
			}
			checkSpecial(t, "round decimals grad", x.Grad(), *c.Grad)
			continue
		}
		for _, dev := range devices {
			name := fmt.Sprintf("round %s decimals=%d on %s", c.DType, c.Decimals, dev)
			checkSpecial(t, name, c.Input.tensor(dev).RoundDecimals(c.Decimals), *c.Out)
			checkSpecial(t, name+" in place", c.Input.tensor(dev).RoundDecimals_(c.Decimals), *c.Out)
			out := torch.Empty([]int{len(c.Input.Data)}, torch.WithDType(dtypeByName[c.DType]), torch.WithDevice(dev))
			checkSpecial(t, name+" into", torch.Into(out).RoundDecimals(c.Input.tensor(dev), c.Decimals), *c.Out)
		}
	}
}

// stridedInputs are the Go twins of semantics.py's STRIDED_INPUTS.
var stridedInputs = map[string]func(d string) *torch.Tensor{
	"expanded":     func(d string) *torch.Tensor { return arangeOn(d, 3).Expand(2, 3) },
	"expanded_mid": func(d string) *torch.Tensor { return arangeOn(d, 6).Reshape(2, 1, 3).Expand(2, 4, 3) },
	"overlapping":  func(d string) *torch.Tensor { return arangeOn(d, 6).AsStrided([]int{3, 3}, []int{1, 1}, 0) },
	"overlapping_transposed": func(d string) *torch.Tensor {
		return arangeOn(d, 10).AsStrided([]int{2, 3}, []int{2, 3}, 0)
	},
	"sliced":            func(d string) *torch.Tensor { return arangeOn(d, 24).Reshape(4, 6).Slice(1, 0, 6, 2) },
	"sliced_rows":       func(d string) *torch.Tensor { return arangeOn(d, 24).Reshape(4, 6).Slice(0, 0, 4, 2) },
	"transposed_sliced": func(d string) *torch.Tensor { return arangeOn(d, 24).Reshape(4, 6).T().Slice(0, 0, 6, 2) },
	"permuted_sliced": func(d string) *torch.Tensor {
		return arangeOn(d, 120).Reshape(2, 3, 4, 5).Permute(0, 2, 3, 1).Slice(1, 0, 4, 2)
	},
	"transposed":          func(d string) *torch.Tensor { return arangeOn(d, 12).Reshape(4, 3).T() },
	"expanded_transposed": func(d string) *torch.Tensor { return arangeOn(d, 3).Reshape(3, 1).Expand(3, 2).T() },
	"size1_zero_stride":   func(d string) *torch.Tensor { return arangeOn(d, 3).AsStrided([]int{3, 1}, []int{1, 0}, 0) },
}

// arangeOn is torch.arange(n.) (float32) on dev.
func arangeOn(dev string, n int) *torch.Tensor {
	return torch.ArangeRange(0, float64(n), 1, torch.WithDevice(dev))
}

// Clone and ToDType lay out a copy of a non-dense input as PyTorch's
// preserve_format does (dense strides in the input's memory order),
// Contiguous in row-major order, with the input's values.
func TestSemanticsCloneStrides(t *testing.T) {
	g := loadSemanticsMore(t)
	ops := map[string]func(x *torch.Tensor) *torch.Tensor{
		"clone":      func(x *torch.Tensor) *torch.Tensor { return x.Clone() },
		"contiguous": func(x *torch.Tensor) *torch.Tensor { return x.Contiguous() },
		"to_float64": func(x *torch.Tensor) *torch.Tensor { return x.ToDType(torch.Float64) },
	}
	for _, c := range g.Strided {
		in, op := stridedInputs[c.Input], ops[c.Op]
		if in == nil || op == nil {
			t.Errorf("%s(%s): no Go twin", c.Op, c.Input)
			continue
		}
		for _, dev := range devices {
			r := op(in(dev))
			if err := r.Err(); err != nil {
				t.Errorf("%s(%s) on %s: %v", c.Op, c.Input, dev, err)
				continue
			}
			if !slices.Equal(r.Stride(), c.Strides) {
				t.Errorf("%s(%s) on %s: strides %v, PyTorch's %v", c.Op, c.Input, dev, r.Stride(), c.Strides)
			}
			if dev == "cpu" {
				checkValues(t, c.Op+"("+c.Input+")", r, c.Out, 0)
			}
		}
	}
}
