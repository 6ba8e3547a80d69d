package badinput

import (
	"fmt"
	"reflect"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// callable is a function or method whose cases are generated: a nil in
// each tensor position, a zero value in each position that can hold one
// (a nil func, pointer or interface; a nil option), and, for methods, a
// nil receiver.
type callable struct {
	label  string        // the cases' name prefix: "Tensor.Add", "torch.Where"
	fn     reflect.Value // the function; a method's receiver is its first parameter
	recv   *receiver     // the receiver's type, for methods
	args   func() []any  // valid arguments (the receiver excluded), when the defaults do not fit
	nilOK  []int         // arguments where nil is PyTorch's None, which it accepts
	zeroOK bool          // the nil-receiver call may return valid results (an accessor)
}

// cases generates the callable's cases.
func (c callable) cases() []badCase {
	var out []badCase
	ft := c.fn.Type()
	first := 0 // the first argument's parameter index
	if c.recv != nil {
		first = 1
		out = append(out, badCase{c.label + "/nil_receiver", func() outcome {
			args := []reflect.Value{reflect.Zero(ft.In(0))}
			for i := 1; i < fixedParams(ft); i++ {
				args = append(args, reflect.Zero(ft.In(i)))
			}
			res := c.fn.Call(args)
			if c.zeroOK || !returnsTensorOrError(ft) {
				return accept(res)
			}
			return expectError(res)
		}})
		for _, z := range c.recv.zeros {
			out = append(out, badCase{c.label + "/" + z.label + "_receiver", func() outcome {
				args := c.validArgs()
				args[0] = reflect.ValueOf(z.make())
				return accept(c.fn.Call(args))
			}})
		}
	}
	for p := first; p < ft.NumIn(); p++ {
		typ := ft.In(p)
		variadic := ft.IsVariadic() && p == ft.NumIn()-1
		if variadic {
			typ = typ.Elem()
		}
		arg := p - first
		switch {
		case holdsTensors(typ):
			nilOK := false
			for _, i := range c.nilOK {
				nilOK = nilOK || i == arg
			}
			out = append(out, badCase{fmt.Sprintf("%s/nil_arg%d", c.label, arg), func() outcome {
				args := c.validArgs()
				if variadic {
					args = append(args, nilLike(typ))
				} else {
					args[p] = nilLike(typ)
				}
				res := c.fn.Call(args)
				if nilOK {
					return accept(res)
				}
				return expectError(res)
			}})
		case canBeZero(typ, variadic):
			out = append(out, badCase{fmt.Sprintf("%s/zero_arg%d", c.label, arg), func() outcome {
				args := c.validArgs()
				if variadic {
					args = append(args, reflect.Zero(typ))
				} else {
					args[p] = reflect.Zero(typ)
				}
				return accept(c.fn.Call(args))
			}})
		}
	}
	return out
}

// validArgs are usable arguments for every fixed parameter (a fresh valid
// receiver first, for methods); variadic parameters get none.
func (c callable) validArgs() []reflect.Value {
	ft := c.fn.Type()
	var args []reflect.Value
	if c.recv != nil {
		args = append(args, reflect.ValueOf(c.recv.valid()))
	}
	if c.args != nil {
		for _, a := range c.args() {
			i := len(args)
			if a == nil {
				args = append(args, reflect.Zero(ft.In(i)))
			} else {
				args = append(args, reflect.ValueOf(a).Convert(ft.In(i)))
			}
		}
		return args
	}
	for i := len(args); i < fixedParams(ft); i++ {
		args = append(args, validArg(ft.In(i)))
	}
	return args
}

func fixedParams(ft reflect.Type) int {
	if ft.IsVariadic() {
		return ft.NumIn() - 1
	}
	return ft.NumIn()
}

var (
	moduleType   = reflect.TypeFor[nn.Module]()
	dtypeType    = reflect.TypeFor[torch.DType]()
	deviceType   = reflect.TypeFor[torch.Device]()
	typedStorage = reflect.TypeFor[torch.TypedStorage]()
	untypedType  = reflect.TypeFor[*torch.UntypedStorage]()
)

// holdsTensors reports whether a parameter type holds tensors or modules,
// whose nil is the bad input of a nil_arg case.
func holdsTensors(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Slice, reflect.Map:
		return holdsTensors(t.Elem())
	}
	return t == tensorType || t == moduleType
}

// canBeZero reports whether a parameter's zero value is worth a case: a
// nil func, pointer, interface or map, a zero storage, or a zero option
// (one zero element of a variadic list of them).
func canBeZero(t reflect.Type, variadic bool) bool {
	switch t.Kind() {
	case reflect.Func, reflect.Pointer, reflect.Interface, reflect.Map:
		return true
	case reflect.Struct:
		return variadic || t == typedStorage
	}
	return false
}

// returnsTensorOrError reports whether a function says how it failed: it
// returns an error or a tensor.
func returnsTensorOrError(ft reflect.Type) bool {
	for i := range ft.NumOut() {
		if o := ft.Out(i); o == errorType || holdsTensors(o) {
			return true
		}
	}
	return false
}

// nilLike is the nil of a tensor-holding type: a nil tensor or module, or
// a list or map holding one next to a valid tensor.
func nilLike(t reflect.Type) reflect.Value {
	switch t.Kind() {
	case reflect.Slice:
		s := reflect.MakeSlice(t, 0, 2)
		return reflect.Append(s, validArg(t.Elem()), reflect.Zero(t.Elem()))
	case reflect.Map:
		m := reflect.MakeMap(t)
		m.SetMapIndex(reflect.ValueOf("weight").Convert(t.Key()), reflect.Zero(t.Elem()))
		return m
	}
	return reflect.Zero(t)
}

// f32 is a fresh valid tensor: float32 [2, 2], values in (0, 1).
func f32() *torch.Tensor {
	return torch.FromSlice([]float32{0.1, 0.2, 0.3, 0.4}, torch.WithShape(2, 2))
}

// validArg is a usable value of a parameter type: a fresh float32 tensor,
// a Linear module, 0, 1.0, a function that returns its first tensor.
func validArg(t reflect.Type) reflect.Value {
	switch t {
	case tensorType:
		return reflect.ValueOf(f32())
	case moduleType:
		return reflect.ValueOf(nn.NewLinear(2, 2)).Convert(t)
	case dtypeType:
		return reflect.ValueOf(torch.Float32)
	case deviceType:
		d, _ := torch.ParseDevice("cpu")
		return reflect.ValueOf(d)
	case typedStorage:
		return reflect.ValueOf(f32().Storage())
	case untypedType:
		return reflect.ValueOf(f32().UntypedStorage())
	case errorType:
		return reflect.ValueOf(torch.ErrArgument).Convert(t)
	}
	switch t.Kind() {
	case reflect.Slice:
		if holdsTensors(t) {
			s := reflect.MakeSlice(t, 0, 2)
			return reflect.Append(s, validArg(t.Elem()), validArg(t.Elem()))
		}
	case reflect.Map:
		if holdsTensors(t) {
			m := reflect.MakeMap(t)
			m.SetMapIndex(reflect.ValueOf("weight").Convert(t.Key()), validArg(t.Elem()))
			return m
		}
	case reflect.Float32, reflect.Float64:
		return reflect.ValueOf(1.0).Convert(t)
	case reflect.Interface:
		return reflect.ValueOf(1).Convert(t)
	case reflect.Func:
		return passThrough(t)
	}
	return reflect.Zero(t)
}

// passThrough makes a function of type t that returns its first tensor
// argument (or a fresh one) for each tensor result, and zeros otherwise.
func passThrough(t reflect.Type) reflect.Value {
	return reflect.MakeFunc(t, func(in []reflect.Value) []reflect.Value {
		var first *torch.Tensor
		for _, a := range in {
			switch {
			case a.Type() == tensorType && first == nil:
				first = a.Interface().(*torch.Tensor)
			case a.Type() == tensorsType && first == nil && a.Len() > 0:
				first = a.Index(0).Interface().(*torch.Tensor)
			}
		}
		if first == nil {
			first = f32()
		}
		out := make([]reflect.Value, t.NumOut())
		for i := range out {
			if t.Out(i) == tensorType {
				out[i] = reflect.ValueOf(first)
			} else {
				out[i] = reflect.Zero(t.Out(i))
			}
		}
		return out
	})
}
