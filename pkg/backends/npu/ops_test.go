package npu_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/backends/npu"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// TestOpsMatchCPU runs compositions on the CPU and on the NPU (the
// emulator in CI, CANN with make test-npu) from the same inputs and
// compares the results: in-place chains, out= forms, writes into views,
// products with their bias, gradients of softmax. Each op alone, on every
// layout and dtype, is TestConformance's (the golden suite on the NPU).
func TestOpsMatchCPU(t *testing.T) {
	torch.ManualSeed(3)
	a := torch.Randn([]int{4, 6})
	b := torch.Randn([]int{6, 4}).T() // transposed: [4, 6]
	row := torch.Randn([]int{6})      // broadcast
	type fn = func(in ...*torch.Tensor) *torch.Tensor
	cases := []struct {
		name   string
		f      fn
		inputs []*torch.Tensor
	}{
		{"softmax backward", func(in ...*torch.Tensor) *torch.Tensor {
			y := in[0].Softmax(1)
			return torch.SoftmaxBackward(in[1], y, 1).Add(torch.LogSoftmaxBackward(in[1], in[0].LogSoftmax(1), 1))
		}, []*torch.Tensor{a, b}},
		{"addmm linear", func(in ...*torch.Tensor) *torch.Tensor {
			return torch.Addmm(in[2].Narrow(0, 0, 4), in[0], in[1].T(), 0.5, 2).Add(torch.Linear(in[0], in[1], in[2].Narrow(0, 0, 4)))
		}, []*torch.Tensor{a, b, row}},
		{"baddbmm", func(in ...*torch.Tensor) *torch.Tensor {
			return torch.Baddbmm(in[2].Narrow(0, 0, 2), in[0].Reshape(2, 2, 6), in[1].Reshape(2, 6, 2), 1, 1)
		}, []*torch.Tensor{a, b.Contiguous(), row}},
		{"fill zero copy", func(in ...*torch.Tensor) *torch.Tensor {
			z := torch.ZerosLike(in[0])
			z.Narrow(1, 0, 2).Fill_(7)
			z.Narrow(1, 3, 2).Copy_(in[0].Narrow(1, 1, 2))
			return z
		}, []*torch.Tensor{a}},
		{"out= forms", func(in ...*torch.Tensor) *torch.Tensor {
			out := torch.ZerosLike(in[0])
			torch.Into(out).Add(in[0], in[1])
			torch.Into(out.T().T()).Mul(out, in[2])
			mm := torch.Empty([]int{0}, torch.WithDevice(in[0].Device().String()))
			torch.Into(mm).Mm(in[0], in[1].T())
			return out.Add(torch.Into(torch.ZerosLike(in[0])).Relu(in[1])).Add(mm.Sum())
		}, []*torch.Tensor{a, b, row}},
		{"in place", func(in ...*torch.Tensor) *torch.Tensor {
			x, y, z := in[0].Clone(), in[0].Clone(), in[0].Clone()
			for _, r := range []*torch.Tensor{x.Add_(in[1]).MulScalar_(0.5).Clamp_(-1, 1), y.Lt_(in[1]), z.Tril_(0)} {
				if r.Err() != nil {
					return r
				}
			}
			return x.Add(y).Add(z)
		}, []*torch.Tensor{a, b}},
		{"cast", func(in ...*torch.Tensor) *torch.Tensor {
			return in[0].MulScalar(10).ToDType(torch.Int32).ToDType(torch.Float64)
		}, []*torch.Tensor{a}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.f(c.inputs...)
			if err := want.Err(); err != nil {
				t.Fatal(err)
			}
			dev := make([]*torch.Tensor, len(c.inputs))
			for i, x := range c.inputs {
				d, err := x.To("npu")
				if err != nil {
					t.Fatal(err)
				}
				dev[i] = d
			}
			got := c.f(dev...)
			if err := got.Err(); err != nil {
				t.Fatal(err)
			}
			if got.Device().String() != "npu:0" {
				t.Errorf("result on %v", got.Device())
			}
			g, err := torch.ToSlice[float64](got)
			if err != nil {
				t.Fatal(err)
			}
			w, _ := torch.ToSlice[float64](want)
			if len(g) != len(w) || !equalShapes(got.Shape(), want.Shape()) {
				t.Fatalf("shape %v, CPU %v", got.Shape(), want.Shape())
			}
			for i := range w {
				if math.Abs(g[i]-w[i]) > 1e-5+1e-5*math.Abs(w[i]) {
					t.Errorf("[%d] = %v, CPU %v", i, g[i], w[i])
				}
			}
		})
	}
	settle(t)
}

func TestOpErrors(t *testing.T) {
	x, _ := torch.Ones([]int{2, 3}).To("npu")
	cases := []struct {
		name string
		got  *torch.Tensor
		kind error
		text string
	}{
		{"shape mismatch", x.Add(torch.Ones([]int{4}, torch.WithDevice("npu"))), torch.ErrShape, "npu:0"},
		// An op the NPU lacks runs on the host (pkg/dispatch's host
		// fallback), so the error is the CPU kernel's, naming the NPU.
		{"op not on the NPU", x.Sin().Add(torch.Ones([]int{3, 2}, torch.WithDevice("npu"))), torch.ErrShape, "npu:0"},
		{"mixed devices", x.Add(torch.Ones([]int{2, 3})), torch.ErrDevice, "cpu"},
		{"missing device", torch.Ones([]int{2}, torch.WithDevice(fmt.Sprintf("npu:%d", npu.DeviceCount()))), torch.ErrDevice, "does not exist"},
	}
	for _, c := range cases {
		err := c.got.Err()
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	settle(t)
}
