package kernel

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// TestResetClearsEveryField fills every field of a call, as a meta function
// and kernel could, and checks that Reset leaves it equal to a fresh call:
// a field added to Call without a line in Reset fails here.
func TestResetClearsEveryField(t *testing.T) {
	var c Call
	c.Reset(OpAdd, device.CPUDevice, 2, 1)
	c.SetOutputs(2)
	for i := range c.In {
		c.In[i] = Operand{DType: dtype.Float32, Shape: []int{2}, Strides: []int{1}, Offset: 3}
	}
	for i := range c.Out {
		c.Out[i] = Operand{DType: dtype.Int64, Shape: []int{2}, Strides: []int{1}}
	}
	copy(c.NewInts(5), []int{1, 2, 3, 4, 5})
	c.SetOutputs(1) // shrinking must not leave the second output behind
	v := reflect.ValueOf(&c).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		switch v.Type().Field(i).Name {
		case "Op", "Device", "In", "Out": // set by Reset's arguments
			continue
		}
		if !f.CanSet() {
			continue
		}
		switch f.Kind() {
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(3)
		case reflect.Uint8:
			f.SetUint(3)
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Array: // Scalars
			f.Index(0).Set(reflect.ValueOf(FloatScalar(2)))
		case reflect.Interface: // Random
			f.Set(reflect.ValueOf(fakeRandom{}))
		default:
			t.Fatalf("field %s of kind %s: teach this test to fill it", v.Type().Field(i).Name, f.Kind())
		}
	}
	c.Reset(OpMul, device.CPUDevice, 2, 1)
	var fresh Call
	fresh.Reset(OpMul, device.CPUDevice, 2, 1)
	if diff := cmp.Diff(fresh, c, cmp.Exporter(func(reflect.Type) bool { return true })); diff != "" {
		t.Errorf("Reset left state behind (-fresh +reset):\n%s", diff)
	}
}

type fakeRandom struct{ Random }
