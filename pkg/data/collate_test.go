package data

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// sample is an item with a tensor, numbers, a string and nested values.
type sample struct {
	Image *torch.Tensor
	Label int
	Score float32
	Name  string
	Extra map[string][]float64
	Pair  [2]*torch.Tensor
}

// sampleBatch is how a batch of samples is collated.
type sampleBatch struct {
	Image *torch.Tensor
	Label *torch.Tensor
	Score *torch.Tensor
	Name  []string
	Extra map[string][]*torch.Tensor
	Pair  []*torch.Tensor
}

func makeSamples() []sample {
	var out []sample
	for i := range 3 {
		f := float32(i)
		out = append(out, sample{
			Image: torch.FromSlice([]float32{f, f + 0.5}),
			Label: i * 2,
			Score: f / 4,
			Name:  strings.Repeat("x", i+1),
			Extra: map[string][]float64{"w": {float64(i), 1}},
			Pair:  [2]*torch.Tensor{torch.Scalar(int64(i)), torch.FromSlice([]bool{i%2 == 0})},
		})
	}
	return out
}

func TestCollateStruct(t *testing.T) {
	b, err := DefaultCollate[sample, sampleBatch](makeSamples())
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, x *torch.Tensor, shape []int, dt torch.DType, want string) {
		t.Helper()
		if x.Err() != nil || !reflect.DeepEqual(x.Shape(), shape) || x.DType() != dt {
			t.Errorf("%s: %v %v %v, want shape %v dtype %v", name, x.Err(), x.Shape(), x.DType(), shape, dt)
			return
		}
		v, _ := x.ToAny()
		if got := fmt.Sprint(v); got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	check("Image", b.Image, []int{3, 2}, torch.Float32, "[0 0.5 1 1.5 2 2.5]")
	check("Label", b.Label, []int{3}, torch.Int64, "[0 2 4]")
	check("Score", b.Score, []int{3}, torch.Float32, "[0 0.25 0.5]")
	if !reflect.DeepEqual(b.Name, []string{"x", "xx", "xxx"}) {
		t.Errorf("Name = %v", b.Name)
	}
	if len(b.Extra["w"]) != 2 {
		t.Fatalf("Extra = %v", b.Extra)
	}
	check("Extra[w][0]", b.Extra["w"][0], []int{3}, torch.Float64, "[0 1 2]")
	check("Extra[w][1]", b.Extra["w"][1], []int{3}, torch.Float64, "[1 1 1]")
	check("Pair[0]", b.Pair[0], []int{3}, torch.Int64, "[0 1 2]")
	check("Pair[1]", b.Pair[1], []int{3, 1}, torch.Bool, "[true false true]")
}

func TestCollateNatural(t *testing.T) {
	b, err := DefaultCollate[sample, any](makeSamples())
	if err != nil {
		t.Fatal(err)
	}
	m, ok := b.(map[string]any)
	if !ok {
		t.Fatalf("batch is %T, want map[string]any", b)
	}
	if _, ok := m["Image"].(*torch.Tensor); !ok {
		t.Errorf("Image is %T", m["Image"])
	}
	if names, ok := m["Name"].([]string); !ok || len(names) != 3 {
		t.Errorf("Name is %#v", m["Name"])
	}
	if pair, ok := m["Pair"].([]any); !ok || len(pair) != 2 {
		t.Errorf("Pair is %#v", m["Pair"])
	}
	if extra, ok := m["Extra"].(map[string]any); !ok || len(extra["w"].([]any)) != 2 {
		t.Errorf("Extra is %#v", m["Extra"])
	}
	// Slices of tensors, TensorDataset's items, stay slices of tensors.
	items := [][]*torch.Tensor{{torch.Scalar(1.5), torch.Scalar(int64(1))}, {torch.Scalar(2.5), torch.Scalar(int64(0))}}
	tb, err := DefaultCollate[[]*torch.Tensor, []*torch.Tensor](items)
	if err != nil || len(tb) != 2 || tb[0].DType() != torch.Float32 || !reflect.DeepEqual(tb[1].Shape(), []int{2}) {
		t.Errorf("tensor pairs: %v, %v", tb, err)
	}
	// Numbers into []X stay numbers.
	if v, err := DefaultCollate[int, []int]([]int{3, 1}); err != nil || !reflect.DeepEqual(v, []int{3, 1}) {
		t.Errorf("ints into []int: %v, %v", v, err)
	}
}

func TestCollateErrors(t *testing.T) {
	for _, c := range []struct {
		want string
		err  error
	}{
		{"each element in list of batch should be of equal size", second(DefaultCollate[[]int, any]([][]int{{1}, {1, 2}}))},
		{"batch: item 0 is int but item 1 is string", second(DefaultCollate[any, any]([]any{1, "a"}))},
		{"batch: item 1 is nil", second(DefaultCollate[any, any]([]any{1, nil}))},
		{"batch: item 0 is a nil tensor", second(DefaultCollate[*torch.Tensor, any]([]*torch.Tensor{nil}))},
		{"stack expects each tensor to be equal size", second(DefaultCollate[*torch.Tensor, any]([]*torch.Tensor{torch.Arange(2), torch.Arange(3)}))},
		{"batch.Missing: item 0 has no Missing", second(DefaultCollate[sample, struct{ Missing *torch.Tensor }](makeSamples()))},
		{"cannot collate string into *torch.Tensor", second(DefaultCollate[string, *torch.Tensor]([]string{"a"}))},
		{"overflows int64", second(DefaultCollate[uint64, any]([]uint64{1 << 63}))},
		{"cannot collate int into string", second(DefaultCollate[int, string]([]int{1}))},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("error %v, want one containing %q", c.err, c.want)
		}
	}
}
