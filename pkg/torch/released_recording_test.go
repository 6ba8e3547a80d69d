package torch_test

import (
	"reflect"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// plainArg is an ordinary argument of type t for a method of a [4, 4]
// receiver: x itself for tensors, dim 0, the value 1.
func plainArg(t reflect.Type, x *torch.Tensor) reflect.Value {
	switch {
	case t == reflect.TypeOf(x):
		return reflect.ValueOf(x)
	case t.Kind() == reflect.Interface:
		return reflect.ValueOf(1.0)
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Int:
		return reflect.ValueOf([]int{0})
	case t.Kind() == reflect.Slice && t.Elem() == reflect.TypeOf(x):
		return reflect.ValueOf([]*torch.Tensor{x})
	case t.Kind() == reflect.Int || t.Kind() == reflect.Float64:
		return reflect.ValueOf(1).Convert(t)
	}
	return reflect.Zero(t)
}

// An op that fails while autograd records (here: its input's memory was
// released, so the kernel refuses it after the meta function accepted it)
// returns its error; recording must not touch the failed output. Every
// method of Tensor is tried, by reflection.
func TestOpsFailingWhileRecordingReturnTheError(t *testing.T) {
	typ := reflect.TypeOf((*torch.Tensor)(nil))
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		switch m.Name {
		case "Release", "RegisterHook", "Backward", "BackwardWith", "ShareMemory_":
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			x := torch.Ones([]int{64, 64}).RequiresGrad_(true)
			x.Release()
			args := []reflect.Value{reflect.ValueOf(x)}
			for j := 1; j < m.Type.NumIn(); j++ {
				if m.Type.IsVariadic() && j == m.Type.NumIn()-1 {
					continue
				}
				args = append(args, plainArg(m.Type.In(j), x))
			}
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s on a released input that requires grad: panic: %v", m.Name, r)
				}
			}()
			m.Func.Call(args) // views and metadata may succeed; nothing may panic
		})
	}
}
