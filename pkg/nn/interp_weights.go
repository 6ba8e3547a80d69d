package nn

import (
	"math"

	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The sampling of Interpolate's modes, as PyTorch's CPU kernels compute
// it: the source positions of each output position along one dim and
// their weights, in float32 for inputs other than float64 ("single"), as
// PyTorch's kernels compute in the input's accumulation type.

// nearestIndex is PyTorch's nearest_idx for each output position, in
// float32 as PyTorch's kernel computes it.
func nearestIndex(in, out int, scale float64) []int64 {
	idx := make([]int64, out)
	s := float32(in) / float32(out)
	if scale > 0 {
		s = float32(1 / scale)
	}
	for j := range idx {
		switch {
		case out == in:
			idx[j] = int64(j)
		case out == 2*in:
			idx[j] = int64(j >> 1)
		default:
			idx[j] = min(int64(math.Floor(float64(float32(j)*s))), int64(in-1))
		}
	}
	return idx
}

// rounder rounds to float32 when single, as arithmetic in float32 does
// after each operation.
func rounder(single bool) func(float64) float64 {
	if single {
		return func(v float64) float64 { return float64(float32(v)) }
	}
	return func(v float64) float64 { return v }
}

// sourceScale is PyTorch's area_pixel_compute_scale: the step between
// output positions in input positions.
func sourceScale(in, out int, scale float64, align bool, round func(float64) float64) float64 {
	switch {
	case align && out > 1:
		return round(float64(in-1) / float64(out-1))
	case align:
		return 0
	case scale > 0:
		return round(1 / scale)
	}
	return round(float64(in) / float64(out))
}

// linearWeights are the two taps (source positions and weights) of each
// output position of linear interpolation, as PyTorch's
// compute_indices_weights_linear.
func linearWeights(in, out int, scale float64, align, single bool) (idx [][]int64, w [][]float64) {
	round := rounder(single)
	s := sourceScale(in, out, scale, align, round)
	idx, w = [][]int64{make([]int64, out), make([]int64, out)}, [][]float64{make([]float64, out), make([]float64, out)}
	for j := range out {
		var src float64
		if align {
			src = round(s * float64(j))
		} else {
			src = max(round(round(s*round(float64(j)+0.5))-0.5), 0)
		}
		k := int64(src)
		next := k
		if k < int64(in-1) {
			next = k + 1
		}
		l := round(src - float64(k))
		idx[0][j], idx[1][j] = k, next
		w[0][j], w[1][j] = round(1-l), l
	}
	return idx, w
}

// cubicA is the A of PyTorch's cubic convolution (as OpenCV's).
const cubicA = -0.75

// cubicWeights are the four taps of each output position of bicubic
// interpolation, as PyTorch's HelperInterpCubic: the source position is
// not clamped at 0 (unlike linear), the taps around it are clamped into
// the input (its edges replicated), and the weights are
// get_cubic_upsample_coefficients of the fraction.
func cubicWeights(in, out int, scale float64, align, single bool) (idx [][]int64, w [][]float64) {
	round := rounder(single)
	s := sourceScale(in, out, scale, align, round)
	idx, w = make([][]int64, 4), make([][]float64, 4)
	for k := range 4 {
		idx[k], w[k] = make([]int64, out), make([]float64, out)
	}
	// cubic_convolution1 and 2, each operation rounded
	conv1 := func(x float64) float64 {
		return round(round(round(round(round((cubicA+2)*x)-(cubicA+3))*x)*x) + 1)
	}
	conv2 := func(x float64) float64 {
		return round(round(round(round(round(round(cubicA*x)-5*cubicA)*x)+8*cubicA)*x) - 4*cubicA)
	}
	for j := range out {
		var src float64
		if align {
			src = round(s * float64(j))
		} else {
			src = round(round(s*round(float64(j)+0.5)) - 0.5)
		}
		k := min(int64(math.Floor(src)), int64(in-1))
		t := min(max(round(src-float64(k)), 0), 1)
		w[0][j], w[1][j] = conv2(round(t+1)), conv1(t)
		w[2][j], w[3][j] = conv1(round(1-t)), conv2(round(round(1-t)+1))
		for i := range 4 {
			idx[i][j] = min(max(k-1+int64(i), 0), int64(in-1))
		}
	}
	return idx, w
}

// areaResize is Interpolate's mode "area": adaptive average pooling of
// x ([N, C, L], [N, C, H, W] or [N, C, D, H, W]) to the spatial size out,
// as PyTorch's adaptive_avg_pool1d (a 2-D pool of one row), 2d and 3d. The
// 3-D pool averages each (H, W) window of every depth, then the depth
// windows of those averages: an average of equal-sized averages, so the
// same mean as PyTorch's over each box.
func areaResize(x *torch.Tensor, out []int) *torch.Tensor {
	s := x.Shape()
	switch len(out) {
	case 1:
		return torch.AdaptiveAvgPool2d(x.Unsqueeze(2), []int{1, out[0]}).SqueezeDim(2)
	case 2:
		return torch.AdaptiveAvgPool2d(x, out)
	}
	n, c, d := s[0], s[1], s[2]
	plane := torch.AdaptiveAvgPool2d(x.Reshape(n, c*d, s[3], s[4]), out[1:])
	deep := torch.AdaptiveAvgPool2d(plane.Reshape(n, c, d, out[1]*out[2]), []int{out[0], out[1] * out[2]})
	return deep.Reshape(n, c, out[0], out[1], out[2])
}

// scalarTypeName is PyTorch's ScalarType name of d, as its "not
// implemented for" errors print it: "Float", "Long".
func scalarTypeName(d torch.DType) string {
	switch d {
	case torch.Bool:
		return "Bool"
	case torch.Uint8:
		return "Byte"
	case torch.Int8:
		return "Char"
	case torch.Int16:
		return "Short"
	case torch.Int32:
		return "Int"
	case torch.Int64:
		return "Long"
	case torch.Float16:
		return "Half"
	case torch.BFloat16:
		return "BFloat16"
	case torch.Float32:
		return "Float"
	case torch.Float64:
		return "Double"
	}
	return d.String()
}
