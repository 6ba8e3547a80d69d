package torch_test

import (
	"errors"
	"math"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Go values into a dtype, as PyTorch 1.13 converts them: torch.tensor(v)
// casts a float (1e300 in float32 is inf) but refuses an integer that does
// not fit; torch.full refuses both; a negative value wraps into uint8.
func TestScalarConversionsAsPyTorch(t *testing.T) {
	f32 := torch.WithDType(torch.Float32)
	u8 := torch.WithDType(torch.Uint8)
	if v, err := torch.Scalar(1e300, f32).Item(); err != nil || !math.IsInf(v, 1) {
		t.Errorf("Scalar(1e300) in float32: %v, %v (torch.tensor gives inf)", v, err)
	}
	if v, err := torch.Scalar(-1e300, torch.WithDType(torch.Float16)).Item(); err != nil || !math.IsInf(v, -1) {
		t.Errorf("Scalar(-1e300) in float16: %v, %v", v, err)
	}
	if v, err := torch.Scalar(-1, u8).Item(); err != nil || v != 255 {
		t.Errorf("Scalar(-1) in uint8: %v, %v (PyTorch wraps to 255)", v, err)
	}
	for name, x := range map[string]*torch.Tensor{
		"Scalar(300) in uint8":    torch.Scalar(300, u8),
		"Full(1e300) in float32":  torch.Full([]int{1}, 1e300, f32),
		"Full(NaN) in int64":      torch.Full([]int{1}, math.NaN(), torch.WithDType(torch.Int64)),
		"Scalar(2^40) in int32":   torch.Scalar(int64(1)<<40, torch.WithDType(torch.Int32)),
		"Full(300) in uint8":      torch.Full([]int{1}, 300, u8),
		"AddScalar(2^64-1) int64": torch.Ones([]int{1}, torch.WithDType(torch.Int64)).AddScalar(uint64(1<<64 - 1)),
	} {
		if !errors.Is(x.Err(), torch.ErrArgument) {
			t.Errorf("%s: %v, want PyTorch's \"value cannot be converted ... without overflow\"", name, x.Err())
		}
	}
}
