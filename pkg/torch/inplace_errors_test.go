package torch_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// badArg is an argument of type t that makes an in-place op on a [2, 3]
// float32 receiver fail: a tensor of another shape, a dim out of range, a
// value that is no scalar.
func badArg(t reflect.Type) reflect.Value {
	switch {
	case t == reflect.TypeOf((*torch.Tensor)(nil)):
		return reflect.ValueOf(torch.Ones([]int{4}))
	case t.Kind() == reflect.Interface:
		return reflect.ValueOf("not a scalar")
	case t.Kind() == reflect.Int:
		return reflect.ValueOf(99).Convert(t)
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Int:
		return reflect.ValueOf([]int{99, 99, 99})
	case t.Kind() == reflect.Slice && t.Elem() == reflect.TypeOf((*torch.Tensor)(nil)):
		return reflect.ValueOf([]*torch.Tensor{torch.Ones([]int{4})})
	}
	return reflect.Zero(t)
}

// Every in-place method (a name ending in "_" that returns a *Tensor) that
// fails leaves its receiver carrying the error, with its data unchanged:
// found by reflection, so a new in-place method is covered at once.
func TestFailedInPlaceOpsLeaveTheErrorInTheReceiver(t *testing.T) {
	typ := reflect.TypeOf((*torch.Tensor)(nil))
	failures := 0
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		if !strings.HasSuffix(m.Name, "_") || m.Type.NumOut() != 1 || m.Type.Out(0) != typ {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			x := torch.FromSlice([]float32{1, 2, 3, 4, 5, 6}, torch.WithShape(2, 3))
			alias := x.Detach() // the same memory, to read it afterwards
			args := []reflect.Value{reflect.ValueOf(x)}
			for j := 1; j < m.Type.NumIn(); j++ {
				in := m.Type.In(j)
				if m.Type.IsVariadic() && j == m.Type.NumIn()-1 {
					if in.Elem() == typ {
						args = append(args, badArg(in.Elem()))
					}
					continue // options: none
				}
				args = append(args, badArg(in))
			}
			r := m.Func.Call(args)[0].Interface().(*torch.Tensor)
			if r.Err() == nil {
				return // these arguments are fine for this op
			}
			failures++
			if x.Err() == nil {
				t.Errorf("%s failed (%v) but the receiver carries no error", m.Name, r.Err())
			}
			if v, err := torch.ToSlice[float32](alias); err != nil || !slices.Equal(v, []float32{1, 2, 3, 4, 5, 6}) {
				t.Errorf("%s failed and changed the data: %v, %v", m.Name, v, err)
			}
		})
	}
	if failures < 50 {
		t.Errorf("only %d in-place methods failed with bad arguments: the test is not exercising them", failures)
	}
}

// The example: an error in the middle of an in-place chain is not
// lost, whichever tensor the caller checks.
func TestInPlaceChainKeepsTheError(t *testing.T) {
	z := torch.Zeros([]int{2, 3})
	bad := torch.Ones([]int{4})
	r := z.MulScalar_(2).Add_(bad).AddScalar_(100)
	if r.Err() == nil || z.Err() == nil {
		t.Fatalf("chain: result %v, receiver %v", r.Err(), z.Err())
	}
	if _, err := z.Item(); err == nil {
		t.Error("Item of a receiver that failed returned no error")
	}
	y := torch.Zeros([]int{2, 3})
	torch.Into(y).Add(torch.Ones([]int{2, 3}), bad)
	if y.Err() == nil {
		t.Error("Into(y).Add with a bad operand: y carries no error")
	}
	if _, err := torch.ToSlice[float32](y); err == nil {
		t.Error("ToSlice of an out= tensor that failed returned no error")
	}
}
