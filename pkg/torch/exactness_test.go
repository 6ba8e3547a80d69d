package torch_test

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"testing"

	goldendata "github.com/mindtorch/mindtorch/internal/golden"
	"github.com/mindtorch/mindtorch/pkg/dtype"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The exactness tests replay testdata/exactness.json (scripts/golden/
// exactness.py, PyTorch 1.13 on an x86 CPU with AVX2): normal_ bit for
// bit, topk's and sort's order among equal values, unique.

// exactNum is a golden value: a JSON number, or "nan".
type exactNum float64

func (v *exactNum) UnmarshalJSON(b []byte) error {
	if string(b) == `"nan"` {
		*v = exactNum(math.NaN())
		return nil
	}
	return json.Unmarshal(b, (*float64)(v))
}

// exactTensor is a golden tensor: shape, dtype name and values in row-major
// order.
type exactTensor struct {
	Shape []int      `json:"shape"`
	DType string     `json:"dtype"`
	Data  []exactNum `json:"data"`
}

// tensor makes the tensor: float64 values cast to the dtype.
func (g exactTensor) tensor(t *testing.T) *torch.Tensor {
	t.Helper()
	d, err := dtype.Parse(g.DType)
	if err != nil {
		t.Fatal(err)
	}
	v := make([]float64, len(g.Data))
	for i, x := range g.Data {
		v[i] = float64(x)
	}
	return torch.FromSlice(v, torch.WithShape(g.Shape...)).ToDType(d)
}

// randomStep is one draw of a random case (exactness.py's draw).
type randomStep struct {
	Op        string  `json:"op"`
	Shape     []int   `json:"shape"`
	DType     string  `json:"dtype"`
	Mean      float64 `json:"mean"`
	Std       float64 `json:"std"`
	Transpose bool    `json:"transpose"`
	From      float64 `json:"from"`
	To        float64 `json:"to"`
	Low       int64   `json:"low"`
	High      int64   `json:"high"`
}

type exactGolden struct {
	Random []struct {
		Name  string       `json:"name"`
		Seed  uint64       `json:"seed"`
		Steps []randomStep `json:"steps"`
		Outs  [][]exactNum `json:"outs"`
	} `json:"random"`
	Topk []struct {
		Input   exactTensor `json:"input"`
		K       int         `json:"k"`
		Dim     int         `json:"dim"`
		Largest bool        `json:"largest"`
		Values  []exactNum  `json:"values"`
		Indices []int64     `json:"indices"`
	} `json:"topk"`
	Sort []struct {
		Input      exactTensor `json:"input"`
		Dim        int         `json:"dim"`
		Descending bool        `json:"descending"`
		Values     []exactNum  `json:"values"`
		Indices    []int64     `json:"indices"`
	} `json:"sort"`
	Unique []struct {
		Input   exactTensor `json:"input"`
		Values  []exactNum  `json:"values"`
		Inverse []int64     `json:"inverse"`
		Counts  []int64     `json:"counts"`
	} `json:"unique"`
}

func loadExact(t *testing.T) *exactGolden {
	t.Helper()
	var g exactGolden
	if err := goldendata.Load("exactness.json", &g); err != nil {
		t.Fatal(err)
	}
	return &g
}

// draw runs one step of a random case.
func draw(t *testing.T, s randomStep) *torch.Tensor {
	t.Helper()
	d, err := dtype.Parse(s.DType)
	if err != nil {
		t.Fatal(err)
	}
	shape := s.Shape
	if s.Transpose {
		shape = []int{s.Shape[1], s.Shape[0]}
	}
	x := torch.Empty(shape, torch.WithDType(d))
	if s.Transpose {
		x = x.T()
	}
	switch s.Op {
	case "normal":
		return x.Normal_(s.Mean, s.Std)
	case "randn_like":
		return torch.RandnLike(x)
	case "uniform":
		return x.Uniform_(s.From, s.To)
	case "random":
		return x.Random_(s.Low, s.High)
	}
	t.Fatalf("unknown step %q", s.Op)
	return nil
}

// sameBits reports whether got and want are the same float64 bit for bit
// (values of 32 and 16 bits are exact in float64), NaNs equal.
func sameBits(got, want float64) bool {
	return math.Float64bits(got) == math.Float64bits(want) || math.IsNaN(got) && math.IsNaN(want)
}

func TestRandomBitForBit(t *testing.T) {
	for _, c := range loadExact(t).Random {
		t.Run(c.Name, func(t *testing.T) {
			if c.Name == "randn_like_transposed" {
				// PyTorch's randn_like makes an empty tensor with the
				// input's strides, then normal_ fills it: a transposed one
				// takes normal_distribution<double>, not normal_fill.
				// RandnLike (creation.go's like) draws a contiguous tensor
				// and lays it out afterwards. Issue 18: remove this skip
				// when like fills the tensor after laying it out.
				t.Skip("RandnLike draws before taking the input's layout (pkg/torch/creation.go like)")
			}
			torch.ManualSeed(c.Seed)
			for i, s := range c.Steps {
				got, err := torch.ToSlice[float64](draw(t, s))
				if err != nil {
					t.Fatal(err)
				}
				want := c.Outs[i]
				if len(got) != len(want) {
					t.Fatalf("step %d: %d values, want %d", i, len(got), len(want))
				}
				bad := 0
				for j := range want {
					if !sameBits(got[j], float64(want[j])) {
						if bad < 3 {
							t.Errorf("step %d %+v [%d]: got %v (%#x) want %v (%#x)", i, s, j, got[j],
								math.Float32bits(float32(got[j])), want[j], math.Float32bits(float32(want[j])))
						}
						bad++
					}
				}
				if bad > 0 {
					t.Errorf("step %d: %d of %d values differ", i, bad, len(want))
				}
			}
		})
	}
}

// TestRandnFloat32Bits checks float32 randn at the width PyTorch stores:
// math.Float32bits of each value.
func TestRandnFloat32Bits(t *testing.T) {
	for _, c := range loadExact(t).Random {
		if len(c.Steps) != 1 || c.Steps[0].Op != "normal" || c.Steps[0].DType != "float32" || c.Steps[0].Transpose {
			continue
		}
		torch.ManualSeed(c.Seed)
		got, err := torch.ToSlice[float32](draw(t, c.Steps[0]))
		if err != nil {
			t.Fatal(err)
		}
		for j, w := range c.Outs[0] {
			if math.Float32bits(got[j]) != math.Float32bits(float32(w)) {
				t.Errorf("%s [%d]: got %#x want %#x", c.Name, j, math.Float32bits(got[j]), math.Float32bits(float32(w)))
				break
			}
		}
	}
}

// checkOrder compares values and indices with PyTorch's.
func checkOrder(t *testing.T, name string, v, i *torch.Tensor, want []exactNum, wantIdx []int64) {
	t.Helper()
	got, err := torch.ToSlice[float64](v.ToDType(torch.Float64))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	idx, err := torch.ToSlice[int64](i)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	wv := make([]float64, len(want))
	for j, w := range want {
		wv[j] = float64(w)
	}
	if !slices.EqualFunc(got, wv, sameBits) || !slices.Equal(idx, wantIdx) {
		t.Errorf("%s:\n got values %v\nwant values %v\n got indices %v\nwant indices %v", name, got, wv, idx, wantIdx)
	}
}

func TestTopkTiesAsPyTorch(t *testing.T) {
	for n, c := range loadExact(t).Topk {
		x := c.Input.tensor(t)
		v, i := x.Topk(c.K, c.Dim, c.Largest)
		name := fmt.Sprintf("topk %d: %s %v k=%d dim=%d largest=%v", n, c.Input.DType, c.Input.Shape, c.K, c.Dim, c.Largest)
		checkOrder(t, name, v, i, c.Values, c.Indices)
		if x.Dim() == 2 { // the same values laid out column-major
			v, i = x.T().Contiguous().T().Topk(c.K, c.Dim, c.Largest)
			checkOrder(t, name+" (column-major)", v, i, c.Values, c.Indices)
		}
	}
}

func TestSortStableAsPyTorch(t *testing.T) {
	for n, c := range loadExact(t).Sort {
		x := c.Input.tensor(t)
		v, i := x.Sort(c.Dim, c.Descending)
		name := fmt.Sprintf("sort %d: %s %v dim=%d descending=%v", n, c.Input.DType, c.Input.Shape, c.Dim, c.Descending)
		checkOrder(t, name, v, i, c.Values, c.Indices)
	}
}

func TestUniqueAsPyTorch(t *testing.T) {
	check := func(name string, x *torch.Tensor, values []exactNum, inverse, counts []int64) {
		t.Helper()
		u, inv, cnt := x.Unique()
		checkOrder(t, name+" values, inverse", u, inv.Reshape(-1), values, inverse)
		got, err := torch.ToSlice[int64](cnt)
		if err != nil || !slices.Equal(got, counts) {
			t.Errorf("%s counts: got %v (%v) want %v", name, got, err, counts)
		}
	}
	for n, c := range loadExact(t).Unique {
		check(fmt.Sprintf("unique %d", n), c.Input.tensor(t), c.Values, c.Inverse, c.Counts)
	}
	// NaNs: PyTorch 1.13 merges and misorders them (unique of [2, nan, 1,
	// 2, nan, 1, 3] is [1, 3, nan, nan, 2], counts [2, 1, 0, 0, 2]); 2.x
	// sorts, NaN last, and keeps each NaN apart (NaN != NaN), each counted
	// once, the inverse of the i-th NaN (by position) the i-th NaN slot.
	// These are 2.x's answers.
	nan := exactNum(math.NaN())
	check("unique nan", torch.FromSlice([]float32{float32(math.NaN()), 1, float32(math.NaN())}),
		[]exactNum{1, nan, nan}, []int64{1, 0, 2}, []int64{1, 1, 1})
	check("unique nan float64", torch.FromSlice([]float64{2, math.NaN(), 1, 2, math.NaN(), 1, 3}),
		[]exactNum{1, 2, 3, nan, nan}, []int64{1, 3, 0, 1, 4, 0, 2}, []int64{2, 2, 1, 1, 1})
	check("unique only nan", torch.FromSlice([]float64{math.NaN(), math.NaN()}, torch.WithShape(2, 1)),
		[]exactNum{nan, nan}, []int64{0, 1}, []int64{1, 1})
}

// BenchmarkRandn1M draws 10^6 float32 normals (PyTorch's normal_fill).
func BenchmarkRandn1M(b *testing.B) {
	for b.Loop() {
		torch.Randn([]int{1_000_000}).Release()
	}
}

// BenchmarkRandn1MFloat64 draws 10^6 float64 normals.
func BenchmarkRandn1MFloat64(b *testing.B) {
	for b.Loop() {
		torch.Randn([]int{1_000_000}, torch.WithDType(torch.Float64)).Release()
	}
}
