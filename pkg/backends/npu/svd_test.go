package npu_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dispatch"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// linalg_svd on the NPU (kernels_svd.go) by aclnnSvd. Singular vectors are
// unique only up to sign, so the checks are what every SVD shares: S the
// CPU's within a tight tolerance, U diag(S) Vh equal to A, U and Vh
// orthonormal, the shapes of full, reduced and values-only calls; and the
// route (native for float32 and float64 matrices, the host for empty ones
// and float16, which the host refuses as PyTorch does, and matrices with a
// NaN or an infinity, whose PyTorch answers are an error or NaN values).

// f64s is x's values as float64.
func f64s(t *testing.T, x *torch.Tensor) []float64 {
	t.Helper()
	v, err := torch.ToSlice[float64](x.ToDType(torch.Float64).Contiguous())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// checkSvdFactors checks, for each of the batch matrices of a (m x n), that
// u (m x uc) diag(s) vh (vr x n) is a within tol (relative to the largest
// singular value) and that u's columns and vh's rows are orthonormal.
func checkSvdFactors(t *testing.T, name string, a, u, s, vh []float64, batch, m, n, uc, vr int, tol float64) {
	t.Helper()
	k := min(m, n)
	for b := range batch {
		A, U, S, V := a[b*m*n:], u[b*m*uc:], s[b*k:], vh[b*vr*n:]
		scale := 1.0
		if k > 0 {
			scale = max(S[0], 1e-300)
		}
		for i := range m {
			for j := range n {
				r := 0.0
				for l := range k {
					r += U[i*uc+l] * S[l] * V[l*n+j]
				}
				if math.Abs(r-A[i*n+j]) > tol*scale {
					t.Fatalf("%s: matrix %d: (U diag(S) Vh)[%d,%d] = %g, A %g", name, b, i, j, r, A[i*n+j])
				}
			}
		}
		for p := range uc {
			for q := range uc {
				d := 0.0
				for i := range m {
					d += U[i*uc+p] * U[i*uc+q]
				}
				if want := b2f(p == q); math.Abs(d-want) > tol {
					t.Fatalf("%s: matrix %d: U^T U [%d,%d] = %g", name, b, p, q, d)
				}
			}
		}
		for p := range vr {
			for q := range vr {
				d := 0.0
				for j := range n {
					d += V[p*n+j] * V[q*n+j]
				}
				if want := b2f(p == q); math.Abs(d-want) > tol {
					t.Fatalf("%s: matrix %d: Vh Vh^T [%d,%d] = %g", name, b, p, q, d)
				}
			}
		}
	}
}

// sameErr reports whether the NPU's error is the CPU's but for the device
// named among the inputs.
func sameErr(npu, cpu error) bool {
	return strings.ReplaceAll(fmt.Sprint(npu), "npu:0", "cpu") == fmt.Sprint(cpu)
}

// b2f is 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// svdCase runs linalg_svd (full or reduced) and svdvals of x on the CPU and
// on the NPU and checks them; native says whether the NPU's kernel must run.
func svdCase(t *testing.T, name string, x *torch.Tensor, native bool) {
	t.Helper()
	sh := x.Shape()
	nd := len(sh)
	m, n := sh[nd-2], sh[nd-1]
	k := min(m, n)
	batch := 1
	for _, d := range sh[:nd-2] {
		batch *= d
	}
	stol, tol := 1e-5, 1e-5
	if x.DType() == torch.Float64 {
		stol, tol = 1e-12, 1e-12
	}
	d, err := x.To("npu")
	if err != nil {
		t.Fatal(err)
	}
	a := f64s(t, x)
	for _, full := range []bool{false, true} {
		label := fmt.Sprintf("%s full=%v", name, full)
		before := dispatch.CountsOf(kernel.OpSvd, device.NPU)
		U, S, Vh := d.LinalgSvd(full)
		after := dispatch.CountsOf(kernel.OpSvd, device.NPU)
		cu, cs, cvh := x.LinalgSvd(full)
		if cu.Err() != nil || U.Err() != nil {
			if !sameErr(U.Err(), cu.Err()) {
				t.Errorf("%s: error %v, CPU %v", label, U.Err(), cu.Err())
			}
			continue
		}
		if ran := after.Native > before.Native; ran != native {
			t.Errorf("%s: native %v, want %v (%v, before %v)", label, ran, native, after, before)
		}
		for i, p := range [][2]*torch.Tensor{{U, cu}, {S, cs}, {Vh, cvh}} {
			if p[0].Device().Type != device.NPU || p[0].DType() != p[1].DType() || !equalShapes(p[0].Shape(), p[1].Shape()) {
				t.Fatalf("%s: output %d %v %v%v, CPU %v%v", label, i, p[0].Device(), p[0].DType(), p[0].Shape(), p[1].DType(),
					p[1].Shape())
			}
		}
		s, ws := f64s(t, S), f64s(t, cs)
		for i := range ws {
			if math.Abs(s[i]-ws[i]) > stol*max(ws[0], 1e-300) {
				t.Fatalf("%s: S[%d] = %g, CPU %g", label, i, s[i], ws[i])
			}
		}
		uc, vr := k, k
		if full {
			uc, vr = m, n
		}
		checkSvdFactors(t, label, a, f64s(t, U), s, f64s(t, Vh), batch, m, n, uc, vr, tol*float64(max(m, n)))
	}
	before := dispatch.CountsOf(kernel.OpSvd, device.NPU)
	S := d.LinalgSvdvals()
	after := dispatch.CountsOf(kernel.OpSvd, device.NPU)
	cs := x.LinalgSvdvals()
	if S.Err() != nil || cs.Err() != nil {
		if !sameErr(S.Err(), cs.Err()) {
			t.Errorf("%s svdvals: error %v, CPU %v", name, S.Err(), cs.Err())
		}
		return
	}
	if ran := after.Native > before.Native; ran != native {
		t.Errorf("%s svdvals: native %v, want %v", name, ran, native)
	}
	if !equalShapes(S.Shape(), cs.Shape()) {
		t.Fatalf("%s svdvals: shape %v, CPU %v", name, S.Shape(), cs.Shape())
	}
	s, ws := f64s(t, S), f64s(t, cs)
	for i := range ws {
		if math.Abs(s[i]-ws[i]) > stol*max(ws[0], 1e-300) {
			t.Fatalf("%s svdvals: S[%d] = %g, CPU %g", name, i, s[i], ws[i])
		}
	}
}

func TestSvdOnNPU(t *testing.T) {
	torch.ManualSeed(11)
	shapes := [][]int{{4, 3}, {3, 5}, {5, 5}, {1, 6}, {6, 1}, {1, 1}, {2, 3, 4}, {2, 2, 5, 3}, {9, 7}}
	for _, dt := range []torch.DType{torch.Float32, torch.Float64} {
		for _, sh := range shapes {
			svdCase(t, fmt.Sprintf("%v %v", dt, sh), torch.Randn(sh).ToDType(dt), true)
		}
		x := torch.Randn([]int{6, 4}).ToDType(dt)
		svdCase(t, fmt.Sprintf("%v transposed", dt), x.MT(), true)
		svdCase(t, fmt.Sprintf("%v sliced", dt), x.Slice(0, 1, 6, 2), true)
		// rank-deficient: repeated rows, a zero matrix, repeated singular values
		r := torch.FromSlice([]float64{1, 2, 3, 2, 4, 6, -1, -2, -3, 0, 0, 0}).Reshape(4, 3).ToDType(dt)
		svdCase(t, fmt.Sprintf("%v rank 1", dt), r, true)
		svdCase(t, fmt.Sprintf("%v zeros", dt), torch.Zeros([]int{3, 4}).ToDType(dt), true)
		svdCase(t, fmt.Sprintf("%v identity", dt), torch.FromSlice([]float64{2, 0, 0, 0, 2, 0}).Reshape(2, 3).ToDType(dt), true)
		// a NaN (the CPU's error) or an infinity (NaN values): the host's answers
		nan := torch.FromSlice([]float64{1, 2, math.NaN(), 4}).Reshape(2, 2).ToDType(dt)
		svdCase(t, fmt.Sprintf("%v NaN", dt), nan, false)
		inf := torch.FromSlice([]float64{1, 2, 3, 4, math.Inf(-1), 6}).Reshape(1, 3, 2).ToDType(dt)
		svdCase(t, fmt.Sprintf("%v Inf", dt), inf, false)
		// empty: the host's identities (aclnnSvd takes no empty tensor)
		for _, sh := range [][]int{{0, 3}, {3, 0}, {0, 0}, {0, 2, 2}} {
			svdCase(t, fmt.Sprintf("%v empty %v", dt, sh), torch.Zeros(sh).ToDType(dt), false)
		}
	}
	// float16: the host's error, as PyTorch's CPU
	svdCase(t, "float16", torch.Randn([]int{3, 3}).ToDType(torch.Float16), false)
	settle(t)
}

func init() {
	// linalg_svd on an Atlas training SoC, which aclnnSvd.md does not list
	children["svd_a1"] = func() {
		d, _ := torch.Randn([]int{3, 2}).To("npu")
		before := dispatch.CountsOf(kernel.OpSvd, device.NPU)
		_, S, _ := d.LinalgSvd(false)
		after := dispatch.CountsOf(kernel.OpSvd, device.NPU)
		fmt.Printf("svd err=%v native=%d host=%d\n", S.Err(), after.Native-before.Native, after.HostFallback-before.HostFallback)
	}
}

// On an Atlas training SoC linalg_svd runs on the host.
func TestSvdOnAtlasTraining(t *testing.T) {
	if !emulated() {
		t.Skip("needs the emulator's MTEMU_SOC")
	}
	out := runChild(t, "svd_a1", "MTEMU_SOC=Ascend910A")
	if w := "svd err=<nil> native=0 host=1"; !strings.Contains(out, w) {
		t.Errorf("on Ascend910A the child did not say %q:\n%s", w, out)
	}
}
