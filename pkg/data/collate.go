package data

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

var (
	tensorType = reflect.TypeFor[*torch.Tensor]()
	anyType    = reflect.TypeFor[any]()
)

// DefaultCollate makes a batch of type B from items, as PyTorch's
// default_collate, position by position:
//
//   - tensors are stacked into one tensor with a new first dimension;
//   - numbers become a tensor: bool, int8, int16, int32, uint8, float32 and
//     float64 keep their dtype, other integers become int64;
//   - structs, maps with string keys, slices and arrays are collated field
//     by field, key by key or element by element (slices must have the
//     same length in every item), into B's field, key or element of the
//     same name or position;
//   - other values (strings) go into a slice of them.
//
// B says what each position becomes: *torch.Tensor for a tensor; a struct
// whose exported fields name the items' fields or keys; a map[string]X; a
// slice or array of the collated elements; []X to keep the values as they
// are. Where B has an interface type (any), a position gets its natural
// form: a tensor, []string, []any for slices, and map[string]any for
// structs and maps. So items of type []*torch.Tensor (TensorDataset's) give
// a batch of type []*torch.Tensor.
func DefaultCollate[T, B any](items []T) (B, error) {
	var out B
	if len(items) == 0 {
		return out, errors.New("data.DefaultCollate: no items")
	}
	samples := make([]reflect.Value, len(items))
	for i := range items {
		samples[i] = reflect.ValueOf(&items[i]).Elem()
	}
	v, err := collate(reflect.TypeFor[B](), samples, "batch")
	if err != nil {
		return out, fmt.Errorf("data.DefaultCollate: %w", err)
	}
	reflect.ValueOf(&out).Elem().Set(v)
	return out, nil
}

// collate makes the value of type want from the samples, one per item, at
// path (for errors).
func collate(want reflect.Type, samples []reflect.Value, path string) (reflect.Value, error) {
	samples, err := unwrap(samples, path)
	if err != nil {
		return reflect.Value{}, err
	}
	typ := samples[0].Type()
	var v reflect.Value
	switch {
	case typ == tensorType:
		v, err = stack(samples, path)
	case isNumber(typ.Kind()) && (want == tensorType || want.Kind() == reflect.Interface):
		v, err = numbers(samples, path)
	case typ.Kind() == reflect.Struct || isStringMap(typ):
		v, err = collateFields(want, samples, path)
	case typ.Kind() == reflect.Slice || typ.Kind() == reflect.Array:
		v, err = collateElements(want, samples, path)
	default: // strings and other values: a slice of them
		elem := want
		if want.Kind() == reflect.Slice {
			elem = want.Elem()
		}
		if want.Kind() == reflect.Interface {
			elem = typ
		}
		if !typ.AssignableTo(elem) {
			return reflect.Value{}, fmt.Errorf("%s: cannot collate %s into %s", path, typ, want)
		}
		v = reflect.MakeSlice(reflect.SliceOf(elem), len(samples), len(samples))
		for i, s := range samples {
			v.Index(i).Set(s)
		}
	}
	if err != nil {
		return reflect.Value{}, err
	}
	if !v.Type().AssignableTo(want) {
		return reflect.Value{}, fmt.Errorf("%s: the batch is %s, which does not go into %s", path, v.Type(), want)
	}
	out := reflect.New(want).Elem()
	out.Set(v)
	return out, nil
}

// unwrap takes the samples out of interfaces and pointers (but tensors),
// and checks that they have one type.
func unwrap(samples []reflect.Value, path string) ([]reflect.Value, error) {
	out := make([]reflect.Value, len(samples))
	for i, s := range samples {
		for s.Kind() == reflect.Interface || (s.Kind() == reflect.Pointer && s.Type() != tensorType) {
			if s.IsNil() {
				return nil, fmt.Errorf("%s: item %d is nil", path, i)
			}
			s = s.Elem()
		}
		if !s.IsValid() {
			return nil, fmt.Errorf("%s: item %d is nil", path, i)
		}
		if i > 0 && s.Type() != out[0].Type() {
			return nil, fmt.Errorf("%s: item 0 is %s but item %d is %s", path, out[0].Type(), i, s.Type())
		}
		out[i] = s
	}
	return out, nil
}

// stack stacks tensor samples.
func stack(samples []reflect.Value, path string) (reflect.Value, error) {
	ts := make([]*torch.Tensor, len(samples))
	for i, s := range samples {
		ts[i] = s.Interface().(*torch.Tensor)
		if ts[i] == nil {
			return reflect.Value{}, fmt.Errorf("%s: item %d is a nil tensor", path, i)
		}
	}
	t := torch.Stack(ts, 0)
	if err := t.Err(); err != nil {
		return reflect.Value{}, fmt.Errorf("%s: %w", path, err)
	}
	return reflect.ValueOf(t), nil
}

func isNumber(k reflect.Kind) bool {
	return k == reflect.Bool || (k >= reflect.Int && k <= reflect.Uint64) || k == reflect.Float32 || k == reflect.Float64
}

func isStringMap(t reflect.Type) bool {
	return t.Kind() == reflect.Map && t.Key().Kind() == reflect.String
}

// numbers makes a 1-D tensor of number samples.
func numbers(samples []reflect.Value, path string) (reflect.Value, error) {
	var t *torch.Tensor
	switch samples[0].Kind() {
	case reflect.Bool:
		t = torch.FromSlice(values(samples, reflect.Value.Bool))
	case reflect.Int8:
		t = torch.FromSlice(convert(values(samples, reflect.Value.Int), func(x int64) int8 { return int8(x) }))
	case reflect.Int16:
		t = torch.FromSlice(convert(values(samples, reflect.Value.Int), func(x int64) int16 { return int16(x) }))
	case reflect.Int32:
		t = torch.FromSlice(convert(values(samples, reflect.Value.Int), func(x int64) int32 { return int32(x) }))
	case reflect.Int, reflect.Int64:
		t = torch.FromSlice(values(samples, reflect.Value.Int))
	case reflect.Uint8:
		t = torch.FromSlice(convert(values(samples, reflect.Value.Uint), func(x uint64) uint8 { return uint8(x) }))
	case reflect.Float32:
		t = torch.FromSlice(convert(values(samples, reflect.Value.Float), func(x float64) float32 { return float32(x) }))
	case reflect.Float64:
		t = torch.FromSlice(values(samples, reflect.Value.Float))
	default: // other unsigned integers
		u := values(samples, reflect.Value.Uint)
		v := make([]int64, len(u))
		for i, x := range u {
			if x > 1<<63-1 {
				return reflect.Value{}, fmt.Errorf("%s: item %d (%d) overflows int64", path, i, x)
			}
			v[i] = int64(x)
		}
		t = torch.FromSlice(v)
	}
	if err := t.Err(); err != nil {
		return reflect.Value{}, fmt.Errorf("%s: %w", path, err)
	}
	return reflect.ValueOf(t), nil
}

func values[V any](samples []reflect.Value, get func(reflect.Value) V) []V {
	out := make([]V, len(samples))
	for i, s := range samples {
		out[i] = get(s)
	}
	return out
}

func convert[A, B any](in []A, f func(A) B) []B {
	out := make([]B, len(in))
	for i, x := range in {
		out[i] = f(x)
	}
	return out
}

// field returns the named field or key of a struct or map sample.
func field(s reflect.Value, name string) (reflect.Value, bool) {
	if s.Kind() == reflect.Struct {
		f, ok := s.Type().FieldByName(name)
		if !ok || !f.IsExported() {
			return reflect.Value{}, false
		}
		return s.FieldByIndex(f.Index), true
	}
	v := s.MapIndex(reflect.ValueOf(name).Convert(s.Type().Key()))
	return v, v.IsValid()
}

// names are the exported field names of a struct sample, or the keys of
// the first map sample.
func names(s reflect.Value) []string {
	var out []string
	if s.Kind() == reflect.Struct {
		for _, f := range reflect.VisibleFields(s.Type()) {
			if f.IsExported() && !f.Anonymous {
				out = append(out, f.Name)
			}
		}
		return out
	}
	for _, k := range s.MapKeys() {
		out = append(out, k.String())
	}
	return out
}

// collateFields collates struct or map samples field by field (key by
// key) into a struct, a map or, for an interface, a map[string]any.
func collateFields(want reflect.Type, samples []reflect.Value, path string) (reflect.Value, error) {
	gather := func(name string) ([]reflect.Value, error) {
		out := make([]reflect.Value, len(samples))
		for i, s := range samples {
			v, ok := field(s, name)
			if !ok {
				return nil, fmt.Errorf("%s.%s: item %d has no %s", path, name, i, name)
			}
			out[i] = v
		}
		return out, nil
	}
	switch {
	case want.Kind() == reflect.Struct:
		out := reflect.New(want).Elem()
		for _, f := range reflect.VisibleFields(want) {
			if !f.IsExported() || f.Anonymous {
				continue
			}
			col, err := gather(f.Name)
			if err != nil {
				return reflect.Value{}, err
			}
			v, err := collate(f.Type, col, path+"."+f.Name)
			if err != nil {
				return reflect.Value{}, err
			}
			out.FieldByIndex(f.Index).Set(v)
		}
		return out, nil
	case isStringMap(want) || want.Kind() == reflect.Interface:
		mt := want
		if want.Kind() == reflect.Interface {
			mt = reflect.TypeFor[map[string]any]()
		}
		out := reflect.MakeMap(mt)
		for _, name := range names(samples[0]) {
			col, err := gather(name)
			if err != nil {
				return reflect.Value{}, err
			}
			v, err := collate(mt.Elem(), col, path+"."+name)
			if err != nil {
				return reflect.Value{}, err
			}
			out.SetMapIndex(reflect.ValueOf(name).Convert(mt.Key()), v)
		}
		return out, nil
	}
	return reflect.Value{}, fmt.Errorf("%s: cannot collate %s into %s", path, samples[0].Type(), want)
}

// collateElements collates slice or array samples, of one length, element
// by element into a slice, an array or, for an interface, a []any.
func collateElements(want reflect.Type, samples []reflect.Value, path string) (reflect.Value, error) {
	n := samples[0].Len()
	for i, s := range samples {
		if s.Len() != n {
			return reflect.Value{}, fmt.Errorf("%s: each element in list of batch should be of equal size: item 0 has %d, item %d has %d", path, n, i, s.Len())
		}
	}
	var out reflect.Value
	switch want.Kind() {
	case reflect.Slice:
		out = reflect.MakeSlice(want, n, n)
	case reflect.Array:
		if want.Len() != n {
			return reflect.Value{}, fmt.Errorf("%s: items of %d elements do not go into %s", path, n, want)
		}
		out = reflect.New(want).Elem()
	case reflect.Interface:
		out = reflect.MakeSlice(reflect.TypeFor[[]any](), n, n)
	default:
		return reflect.Value{}, fmt.Errorf("%s: cannot collate %s into %s", path, samples[0].Type(), want)
	}
	col := make([]reflect.Value, len(samples))
	for j := range n {
		for i, s := range samples {
			col[i] = s.Index(j)
		}
		v, err := collate(out.Type().Elem(), col, fmt.Sprintf("%s[%d]", path, j))
		if err != nil {
			return reflect.Value{}, err
		}
		out.Index(j).Set(v)
	}
	return out, nil
}
