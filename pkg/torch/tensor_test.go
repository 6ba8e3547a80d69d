package torch_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

func TestChainedErrorsCarryThrough(t *testing.T) {
	a := torch.Ones([]int{2, 3})
	b := torch.Ones([]int{4})
	out := a.Add(b).Relu().Transpose(0, 1).MulScalar(2)
	err := out.Err()
	if !errors.Is(err, torch.ErrShape) {
		t.Fatalf("want a shape error, got %v", err)
	}
	var te *torch.Error
	if !errors.As(err, &te) || te.Op != "add" {
		t.Fatalf("want the add op in the error, got %#v", te)
	}
	if d := cmp.Diff([][]int{{2, 3}, {4}}, te.Shapes); d != "" {
		t.Errorf("shapes in error: %s", d)
	}
	if _, err := out.Item(); !errors.Is(err, torch.ErrShape) {
		t.Errorf("Item: %v", err)
	}
	if _, err := torch.ToSlice[float32](out); !errors.Is(err, torch.ErrShape) {
		t.Errorf("ToSlice: %v", err)
	}
	if _, err := out.To("cpu"); !errors.Is(err, torch.ErrShape) {
		t.Errorf("To: %v", err)
	}
}

func TestBadInputErrors(t *testing.T) {
	x := torch.Ones([]int{2, 3})
	cases := []struct {
		name string
		got  *torch.Tensor
		kind error
	}{
		{"view", x.View(4), torch.ErrShape},
		{"view two -1", x.View(-1, -1), torch.ErrShape},
		{"transpose dim", x.Transpose(0, 2), torch.ErrIndex},
		{"select index", x.Select(1, 3), torch.ErrIndex},
		{"narrow", x.Narrow(1, 2, 2), torch.ErrIndex},
		{"expand", x.Expand(3, 3), torch.ErrShape},
		{"permute", x.Permute(0, 0), torch.ErrArgument},
		{"t of 3-D", torch.Ones([]int{1, 2, 3}).T(), torch.ErrShape},
		{"as_strided out of storage", x.AsStrided([]int{3, 3}, []int{3, 1}, 0), torch.ErrShape},
		{"negative shape", torch.Zeros([]int{2, -1}), torch.ErrShape},
		{"bad device", torch.Zeros([]int{2}, torch.WithDevice("gpu")), torch.ErrDevice},
		{"sub bool", torch.Ones([]int{2}, torch.WithDType(torch.Bool)).Sub(torch.Ones([]int{2}, torch.WithDType(torch.Bool))), torch.ErrDType},
		{"bitwise on float", x.BitwiseAnd(x), torch.ErrDType},
		{"int division by zero", torch.FromSlice([]int{1, 2}).DivTrunc(torch.FromSlice([]int{1, 0})), torch.ErrArgument},
		{"in-place into expanded", torch.Ones([]int{1, 3}).Expand(2, 3).AddScalar_(1), torch.ErrArgument},
		{"in-place int result type", torch.FromSlice([]int{1}).Add_(torch.FromSlice([]float32{1})), torch.ErrDType},
		{"requires grad on int", torch.FromSlice([]int{1}).RequiresGrad_(true), torch.ErrDType},
		{"arange zero step", torch.ArangeRange(0, 1, 0), torch.ErrArgument},
		{"mixed devices", x.Add(torch.Ones([]int{2, 3}, torch.WithDevice("meta"))), torch.ErrDevice},
	}
	for _, c := range cases {
		if err := c.got.Err(); !errors.Is(err, c.kind) {
			t.Errorf("%s: want %v, got %v", c.name, c.kind, err)
		}
	}
	if _, err := torch.Ones([]int{2}, torch.WithDevice("meta")).To("cpu"); !errors.Is(err, torch.ErrDevice) {
		t.Errorf("meta to cpu: %v", err)
	}
	if _, err := torch.Ones([]int{2}).Item(); !errors.Is(err, torch.ErrShape) {
		t.Errorf("item of 2 elements: %v", err)
	}
}

func TestWritesThroughViewsReachTheBase(t *testing.T) {
	base := torch.Zeros([]int{3, 4})
	base.Transpose(0, 1).Select(0, 2).Fill_(7)        // column 2
	base.Slice(1, 0, 4, 3).Select(0, 0).AddScalar_(1) // row 0, columns 0 and 3
	base.Narrow(0, 2, 1).Unsqueeze(0).MulScalar_(0.5) // row 2 halved
	got, err := torch.ToSlice[float32](base)
	if err != nil {
		t.Fatal(err)
	}
	want := []float32{1, 0, 7, 1, 0, 0, 7, 0, 0, 0, 3.5, 0}
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
	if base.Version() != 3 {
		t.Errorf("version counter %d, want 3", base.Version())
	}
}

func TestMetaDeviceAllocatesNoData(t *testing.T) {
	m := []torch.Option{torch.WithDevice("meta")}
	for name, x := range map[string]*torch.Tensor{
		"zeros":    torch.Zeros([]int{1 << 20, 1 << 20}, m...),
		"ones":     torch.Ones([]int{1000, 1000}, m...),
		"full":     torch.Full([]int{3}, 2, m...),
		"rand":     torch.Rand([]int{5, 5}, m...),
		"randn":    torch.Randn([]int{5, 5}, m...),
		"randint":  torch.Randint(0, 3, []int{5}, m...),
		"arange":   torch.Arange(10, m...),
		"linspace": torch.Linspace(0, 1, 5, m...),
		"eye":      torch.Eye(4, m...),
		"view":     torch.Zeros([]int{4, 6}, m...).View(2, 12).Transpose(0, 1).Slice(0, 1, 12, 2),
		"add":      torch.Zeros([]int{4, 1}, m...).Add(torch.Zeros([]int{3}, m...)),
		"cast":     torch.Zeros([]int{4}, m...).ToDType(torch.Int8),
	} {
		if err := x.Err(); err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !x.IsMeta() {
			t.Errorf("%s: on %v", name, x.Device())
		}
		if _, err := x.DataPtr(); !errors.Is(err, torch.ErrDevice) {
			t.Errorf("%s: DataPtr of meta tensor: %v", name, err)
		}
	}
	if s := torch.Zeros([]int{4, 1}, m...).Add(torch.Zeros([]int{3}, m...)).Shape(); !cmp.Equal(s, []int{4, 3}) {
		t.Errorf("meta add shape %v", s)
	}
}

func TestEveryCPUOpHasAMetaFunction(t *testing.T) {
	ops := torch.RegisteredOps()
	if len(ops) < 70 {
		t.Fatalf("only %d ops registered", len(ops))
	}
	for _, row := range ops {
		hasCPU, hasMeta := false, false
		for _, d := range row.Devices {
			hasCPU = hasCPU || d.String() == "cpu"
			hasMeta = hasMeta || d.String() == "meta"
		}
		if hasCPU && !hasMeta {
			t.Errorf("%s runs on cpu but has no meta function", row.Op)
		}
	}
}

func TestFromNested(t *testing.T) {
	x := torch.FromNested([][][]int{{{1, 2}, {3, 4}}, {{5, 6}, {7, 8}}})
	if x.DType() != torch.Int64 || !cmp.Equal(x.Shape(), []int{2, 2, 2}) {
		t.Fatalf("got %v %v", x.DType(), x.Shape())
	}
	got, _ := torch.ToSlice[int](x.Permute(2, 0, 1))
	if d := cmp.Diff([]int{1, 3, 5, 7, 2, 4, 6, 8}, got); d != "" {
		t.Error(d)
	}
	if err := torch.FromNested([][]float32{{1, 2}, {3}}).Err(); !errors.Is(err, torch.ErrShape) {
		t.Errorf("ragged: %v", err)
	}
	if v, err := torch.FromNested(2.5).Item(); err != nil || v != 2.5 {
		t.Errorf("scalar: %v %v", v, err)
	}
}

func TestPointwiseBroadcastAndLayouts(t *testing.T) {
	a := torch.Arange(12, torch.WithDType(torch.Float32)).Reshape(3, 4)
	cases := []struct {
		name string
		got  *torch.Tensor
		want []float64
	}{
		{"transposed + row", a.T().Add(torch.FromSlice([]float32{100, 200, 300})), []float64{100, 204, 308, 101, 205, 309, 102, 206, 310, 103, 207, 311}},
		{"sliced * scalar", a.Slice(1, 1, 4, 2).MulScalar(2), []float64{2, 6, 10, 14, 18, 22}},
		{"expanded - col", torch.FromSlice([]float32{1, 2, 3}).Unsqueeze(1).Expand(3, 2).Sub(torch.FromSlice([]float32{1, 1})), []float64{0, 0, 1, 1, 2, 2}},
		{"int / int is float", torch.FromSlice([]int{3, -7}).Div(torch.FromSlice([]int{2, 2})), []float64{1.5, -3.5}},
		{"floor div", torch.FromSlice([]int{7, -7}).DivFloor(torch.FromSlice([]int{2, 2})), []float64{3, -4}},
		{"remainder sign", torch.FromSlice([]float32{-7, 7}).RemainderScalar(3), []float64{2, 1}},
		{"0-dim", torch.Scalar(2.5).Add(torch.Scalar(1)), []float64{3.5}},
		{"empty", torch.Zeros([]int{0, 3}).AddScalar(1), []float64{}},
		{"half", torch.FromSlice([]float32{1, 2049}).ToDType(torch.Float16).AddScalar(1), []float64{2, 2048}},
		{"uint8 wraps", torch.FromSlice([]uint8{250}).AddScalar(10), []float64{4}},
		{"compare", torch.FromSlice([]float32{1, 2, 3}).GtScalar(2), []float64{0, 0, 1}},
	}
	for _, c := range cases {
		got, err := torch.ToSlice[float64](c.got)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s: %s", c.name, d)
		}
	}
	// Output layout follows the inputs', as TensorIterator's does.
	if s := a.T().AddScalar(1).Stride(); !cmp.Equal(s, []int{1, 4}) {
		t.Errorf("x.T()+1 strides %v, PyTorch (1, 4)", s)
	}
}

func TestUseAfterReleaseIsAnError(t *testing.T) {
	for _, n := range []int{4, 1 << 20} { // Go heap and cached memory
		x := torch.Ones([]int{n})
		v := x.Narrow(0, 1, 2)
		x.Release()
		x.Release()
		for _, got := range []*torch.Tensor{x.Add(x), v.Relu(), torch.Ones([]int{n}).Add_(x)} {
			if err := got.Err(); !errors.Is(err, torch.ErrArgument) || !strings.Contains(err.Error(), "released") {
				t.Errorf("n=%d: op on a released tensor: err = %v", n, err)
			}
		}
		if _, err := x.Sum().Item(); err == nil {
			t.Errorf("n=%d: Item of a released tensor succeeded", n)
		}
	}
}

// TestExpFloat32Accuracy checks the vectorized float32 exp (and softmax,
// which uses it) against float64 over the whole normal range.
func TestExpFloat32Accuracy(t *testing.T) {
	x := torch.Linspace(-87, 88.7, 200001)
	got, _ := torch.ToSlice[float32](x.Exp())
	want, _ := torch.ToSlice[float64](x.ToDType(torch.Float64).Exp())
	worst := 0.0
	for i := range want {
		worst = max(worst, math.Abs(float64(got[i])-want[i])/want[i])
	}
	if worst > 2.4e-7 { // two float32 ulps
		t.Errorf("largest relative error %g", worst)
	}
	special, _ := torch.ToSlice[float32](torch.FromSlice([]float32{float32(math.Inf(-1)), float32(math.Inf(1)),
		float32(math.NaN()), 0, 89, -104}).Exp())
	if special[0] != 0 || !math.IsInf(float64(special[1]), 1) || !math.IsNaN(float64(special[2])) || special[3] != 1 ||
		!math.IsInf(float64(special[4]), 1) || special[5] != 0 {
		t.Errorf("exp of -inf, inf, NaN, 0, 89, -104: %v", special)
	}
	row, _ := torch.ToSlice[float32](torch.FromSlice([]float32{1, float32(math.NaN()), 2}).Reshape(1, 3).Softmax(1))
	if !math.IsNaN(float64(row[0])) || !math.IsNaN(float64(row[2])) {
		t.Errorf("softmax of a row with NaN: %v", row)
	}
}
