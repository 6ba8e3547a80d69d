package torch_test

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mindtorch/mindtorch/internal/conformance"
	"github.com/mindtorch/mindtorch/pkg/dtype"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// golden is testdata/foundation.json, written by scripts/golden/foundation.py
// with real PyTorch.
type golden struct {
	Torch string `json:"torch"`
	Views []struct {
		Shape     []int   `json:"shape"`
		Ops       [][]any `json:"ops"`
		OutShape  []int   `json:"out_shape"`
		OutStride []int   `json:"out_stride"`
		OutOffset int     `json:"out_offset"`
		Shares    bool    `json:"shares"`
		Values    []float64
		Error     string `json:"error"`
	} `json:"views"`
	Promotion   [][3]string `json:"promotion"`
	ResultTypes []struct {
		DType   string `json:"dtype"`
		Dims    int    `json:"dims"`
		Scalar  string `json:"scalar"`
		ZeroDim string `json:"zerodim"`
		Out     string `json:"out"`
	} `json:"result_types"`
	Prints []struct {
		Values  []any          `json:"values"`
		Shape   []int          `json:"shape"`
		DType   string         `json:"dtype"`
		Options map[string]any `json:"options"`
		Repr    string         `json:"repr"`
	} `json:"prints"`
	Casts []struct {
		Src    string  `json:"src"`
		Dst    string  `json:"dst"`
		Out    []any   `json:"out"`
		IntSrc []int64 `json:"int_src"`
	} `json:"casts"`
	Random   map[string][]float64 `json:"random"`
	Creation map[string]any       `json:"creation"`
}

func loadGolden(t *testing.T) *golden {
	t.Helper()
	b, err := os.ReadFile("../../testdata/foundation.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

func TestViewsMatchPyTorch(t *testing.T) {
	g := loadGolden(t)
	for _, c := range g.Views {
		n := 1
		for _, s := range c.Shape {
			n *= s
		}
		for _, dev := range []string{"cpu", "meta"} {
			base := torch.Arange(n, torch.WithDType(torch.Float32), torch.WithDevice(dev)).Reshape(c.Shape...)
			v := base
			for _, op := range c.Ops {
				v = conformance.ApplyView(v, op)
			}
			name := dev + " " + cmp.Diff(nil, c.Ops)
			if c.Error != "" {
				if v.Err() == nil {
					t.Errorf("%s: no error, PyTorch says %q", name, c.Error)
				}
				continue
			}
			if err := v.Err(); err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			got := []any{v.Shape(), v.Stride(), v.StorageOffset(), v.Storage() == base.Storage()}
			want := []any{c.OutShape, c.OutStride, c.OutOffset, c.Shares}
			if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("%s %v: (-pytorch +ours)\n%s", name, c.Shape, d)
			}
			if dev == "cpu" {
				vals, err := torch.ToSlice[float64](v)
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(c.Values, vals, cmpopts.EquateEmpty()); d != "" {
					t.Errorf("%s values: %s", name, d)
				}
			}
		}
	}
}

func TestPromotionMatchesPyTorch(t *testing.T) {
	g := loadGolden(t)
	for _, p := range g.Promotion {
		a, _ := dtype.Parse(p[0])
		b, _ := dtype.Parse(p[1])
		if got := torch.PromoteTypes(a, b); got.Name() != p[2] {
			t.Errorf("promote(%s, %s) = %s, PyTorch %s", p[0], p[1], got.Name(), p[2])
		}
	}
	for _, r := range g.ResultTypes {
		d, _ := dtype.Parse(r.DType)
		shape := []int{2}
		if r.Dims == 0 {
			shape = nil
		}
		x := torch.Ones(shape, torch.WithDType(d))
		var other any
		switch r.Scalar {
		case "int":
			other = 2
		case "float":
			other = 2.5
		case "bool":
			other = true
		default:
			zd, _ := dtype.Parse(r.ZeroDim)
			other = torch.Ones(nil, torch.WithDType(zd))
		}
		got, err := torch.ResultType(x, other)
		if err != nil || got.Name() != r.Out {
			t.Errorf("result_type(%s dims=%d, %v %s) = %v %v, PyTorch %s", r.DType, r.Dims, r.Scalar, r.ZeroDim, got, err, r.Out)
		}
	}
}

func TestPrintMatchesPyTorch(t *testing.T) {
	g := loadGolden(t)
	defer torch.SetPrintOptions(torch.PrintProfile("default"))
	for _, c := range g.Prints {
		var opts []torch.PrintOption
		for k, v := range c.Options {
			switch k {
			case "precision":
				opts = append(opts, torch.PrintPrecision(int(conformance.Num(v))))
			case "threshold":
				opts = append(opts, torch.PrintThreshold(conformance.Num(v)))
			case "edgeitems":
				opts = append(opts, torch.PrintEdgeItems(int(conformance.Num(v))))
			case "linewidth":
				opts = append(opts, torch.PrintLineWidth(int(conformance.Num(v))))
			case "profile": // first: a profile sets every option
				opts = append([]torch.PrintOption{torch.PrintProfile(v.(string))}, opts...)
			case "sci_mode":
				opts = append(opts, torch.PrintSciMode(v.(bool)))
			}
		}
		torch.SetPrintOptions(append([]torch.PrintOption{torch.PrintProfile("default")}, opts...)...)
		vals := make([]float64, len(c.Values))
		for i, v := range c.Values {
			vals[i] = conformance.Num(v)
		}
		d, _ := dtype.Parse(c.DType)
		x := torch.FromSlice(vals, torch.WithShape(c.Shape...)).ToDType(d)
		if dev, ok := c.Options["device"]; ok {
			var err error
			if x, err = x.To(dev.(string)); err != nil {
				t.Fatal(err)
			}
		}
		if rg, ok := c.Options["requires_grad"]; ok && rg.(bool) {
			x.RequiresGrad_(true)
		}
		if got := x.String(); got != c.Repr {
			t.Errorf("print %v %s %v:\n got: %s\nwant: %s", c.Shape, c.DType, c.Options, got, c.Repr)
		}
		torch.SetPrintOptions(torch.PrintProfile("default"))
	}
}

func TestCastsMatchPyTorch(t *testing.T) {
	g := loadGolden(t)
	src := []float64{0.0, math.Copysign(0, -1), 1.5, -1.5, 2.5, -2.7, 127.9, 128.0, 255.5, 256.0, 300.5, -129.0, 65504.0, 65520.0,
		1e10, -1e10, 3e38, math.Inf(1), math.Inf(-1), math.NaN(), 1e-8, 1.0009765625, 1.00048828125, 0.1}
	for _, c := range g.Casts {
		sd, _ := dtype.Parse(c.Src)
		dd, _ := dtype.Parse(c.Dst)
		var x *torch.Tensor
		if c.IntSrc != nil {
			x = torch.FromSlice(c.IntSrc)
		} else {
			x = torch.FromSlice(src).ToDType(sd)
		}
		y := x.ToDType(dd)
		if dd == torch.Int64 {
			got, err := torch.ToSlice[int64](y)
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range c.Out {
				if got[i] != int64(conformance.Num(w)) && !(conformance.Num(w) == -9.223372036854775808e18 && got[i] == math.MinInt64) {
					t.Errorf("%s->%s [%d]: got %d want %v", c.Src, c.Dst, i, got[i], w)
				}
			}
			continue
		}
		got, err := torch.ToSlice[float64](y)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range c.Out {
			want := conformance.Num(w)
			if !(got[i] == want || (math.IsNaN(got[i]) && math.IsNaN(want))) {
				t.Errorf("%s->%s [%d]: got %v want %v", c.Src, c.Dst, i, got[i], want)
			}
		}
	}
}

func TestRandomMatchesPyTorch(t *testing.T) {
	g := loadGolden(t)
	r := g.Random
	check := func(name string, x *torch.Tensor, tol float64) {
		t.Helper()
		got, err := torch.ToSlice[float64](x)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(r[name], got, cmpopts.EquateApprox(0, tol)); d != "" {
			t.Errorf("%s: (-pytorch +ours)\n%s", name, d)
		}
	}
	torch.ManualSeed(0)
	check("rand3", torch.Rand([]int{3}), 0)
	check("randn3", torch.Randn([]int{3}), 1e-7)
	torch.ManualSeed(42)
	// PyTorch fills float32 normals of 16+ elements with AVX2 float
	// arithmetic: equal to a few ulps.
	check("randn40", torch.Randn([]int{40}), 1e-5)
	check("rand_f64_5", torch.Rand([]int{5}, torch.WithDType(torch.Float64)), 0)
	check("randint", torch.Randint(0, 10, []int{12}), 0)
	check("randint_big", torch.Randint(-1<<40, 1<<40, []int{4}), 0)
	check("randn_f64_20", torch.Randn([]int{20}, torch.WithDType(torch.Float64)), 1e-12)
	check("bernoulli", torch.Empty([]int{10}).Bernoulli_(0.3), 0)
	check("uniform", torch.Empty([]int{6}).Uniform_(-2, 3), 0)
	check("normal_small", torch.Empty([]int{5}).Normal_(1, 2), 1e-6)
	check("rand_half", torch.Rand([]int{4}, torch.WithDType(torch.Float16)), 0)
	gen := torch.NewGenerator(7)
	check("gen7_rand4", torch.Rand([]int{4}, torch.WithGenerator(gen)), 0)
}

func TestCreationMatchesPyTorch(t *testing.T) {
	g := loadGolden(t)
	c := g.Creation
	check := func(name string, x *torch.Tensor) {
		t.Helper()
		got, err := torch.ToSlice[float64](x.Flatten(0, -1))
		if err != nil {
			t.Fatal(err)
		}
		var want []float64
		var flat func(v any)
		flat = func(v any) {
			if s, ok := v.([]any); ok {
				for _, e := range s {
					flat(e)
				}
				return
			}
			want = append(want, conformance.Num(v))
		}
		flat(c[name])
		if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-7)); d != "" {
			t.Errorf("%s: (-pytorch +ours)\n%s", name, d)
		}
	}
	check("arange_int", torch.ArangeRange(2, 11, 3))
	check("arange_float", torch.ArangeRange(0, 1, 0.1))
	check("arange_neg", torch.ArangeRange(5, -3, -2))
	check("linspace", torch.Linspace(-1, 1, 7))
	check("linspace_f64", torch.Linspace(0, 1, 11, torch.WithDType(torch.Float64)))
	check("linspace_one", torch.Linspace(3, 9, 1))
	// These bit for bit: integer linspaces truncate start and end first,
	// float32 rounds end - start before dividing it.
	exact := cmpopts.EquateApprox(0, 0)
	for name, x := range map[string]*torch.Tensor{
		"linspace_int32":     torch.Linspace(0.5, 10.5, 5, torch.WithDType(torch.Int32)),
		"linspace_int64_neg": torch.Linspace(-3.7, 9.2, 7, torch.WithDType(torch.Int64)),
		"linspace_uint8":     torch.Linspace(0.5, 10.5, 5, torch.WithDType(torch.Uint8)),
		"linspace_f32_odd":   torch.Linspace(1e-3, 7.1, 6),
	} {
		got, err := torch.ToSlice[float64](x.ToDType(torch.Float64))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var want []float64
		for _, v := range c[name].([]any) {
			want = append(want, conformance.Num(v))
		}
		if d := cmp.Diff(want, got, exact); d != "" {
			t.Errorf("%s: (-pytorch +ours)\n%s", name, d)
		}
	}
	check("eye23", torch.EyeNM(2, 3))
	for name, x := range map[string]*torch.Tensor{
		"full_dtype":       torch.Full([]int{2}, 3),
		"full_float_dtype": torch.Full([]int{2}, 3.5),
		"full_bool_dtype":  torch.Full([]int{2}, true),
	} {
		if x.DType().String() != c[name] {
			t.Errorf("%s: %v, PyTorch %v", name, x.DType(), c[name])
		}
	}
}
