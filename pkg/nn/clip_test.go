package nn_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/internal/golden"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

type clipFile struct {
	Clip struct {
		Cases []struct {
			Kind      string          `json:"kind"`
			MaxNorm   float64         `json:"max_norm"`
			NormType  any             `json:"norm_type"`
			ClipValue float64         `json:"clip_value"`
			Grads     []golden.Tensor `json:"grads"`
			Total     float64         `json:"total"`
			After     []golden.Tensor `json:"after"`
		} `json:"cases"`
		NonfiniteError string `json:"nonfinite_error"`
	} `json:"clip"`
}

// ClipGradNorm_ and ClipGradValue_ give PyTorch's totals and gradients,
// for every norm type, in float32 and float64.
func TestClipGradMatchesPyTorch(t *testing.T) {
	var f clipFile
	if err := golden.Load("optim.json", &f); err != nil {
		t.Fatal(err)
	}
	for n, c := range f.Clip.Cases {
		var ps []*torch.Tensor
		for _, g := range c.Grads {
			p := torch.ZerosLike(g.Tensor()).RequiresGrad_(true)
			if err := p.SetGrad(g.Tensor()); err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		atol, rtol := 1e-6, 1e-5
		if c.Grads[0].DType == "float64" {
			atol, rtol = 1e-14, 1e-12
		}
		if c.Kind == "value" {
			if err := nn.ClipGradValue_(ps, c.ClipValue); err != nil {
				t.Fatal(err)
			}
		} else {
			norm, ok := c.NormType.(float64)
			if !ok {
				norm = math.Inf(1)
			}
			ps = append(ps, torch.Zeros([]int{2}).RequiresGrad_(true)) // no gradient
			total, err := nn.ClipGradNorm_(ps, c.MaxNorm, norm, true)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := total.Item()
			if !golden.Close(got, c.Total, atol, rtol) {
				t.Errorf("case %d (norm %v): total %.17g, PyTorch %.17g", n, norm, got, c.Total)
			}
		}
		for i, want := range c.After {
			got, _ := torch.ToSlice[float64](ps[i].Grad().ToDType(torch.Float64))
			for j := range want.Data {
				if !golden.Close(got[j], want.Data[j], atol, rtol) {
					t.Errorf("case %d %s: grad %d[%d] = %.17g, PyTorch %.17g", n, c.Kind, i, j, got[j], want.Data[j])
				}
			}
		}
	}
	p := torch.Zeros([]int{2}).RequiresGrad_(true)
	p.SetGrad(torch.FromSlice([]float32{1, float32(math.Inf(1))}))
	if _, err := nn.ClipGradNorm_([]*torch.Tensor{p}, 1, 2, true); err == nil || !strings.Contains(err.Error(), f.Clip.NonfiniteError) {
		t.Errorf("non-finite norm: %v, PyTorch %q", err, f.Clip.NonfiniteError)
	}
	if v, _ := torch.ToSlice[float32](p.Grad()); v[0] != 1 {
		t.Errorf("the refused clip changed the gradient: %v", v)
	}
	if total, err := nn.ClipGradNorm_([]*torch.Tensor{torch.Zeros([]int{1}).RequiresGrad_(true)}, 1, 2, false); err != nil || total.DType() != torch.Float32 {
		t.Errorf("no gradients: %v, %v", total, err)
	}
	if _, err := nn.ClipGradNorm_([]*torch.Tensor{nil}, 1, 2, false); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("a nil parameter: %v", err)
	}
	if err := nn.ClipGradValue_([]*torch.Tensor{nil}, 1); !errors.Is(err, torch.ErrArgument) {
		t.Errorf("a nil parameter: %v", err)
	}
}
