package npu

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/pkg/backends/kernel"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// cDTypes are the emulator's names of the ACL dtype numbers.
var cDTypes = []struct {
	n    int
	name string
}{{0, "DT_FLOAT"}, {1, "DT_FLOAT16"}, {2, "DT_INT8"}, {3, "DT_INT32"}, {4, "DT_UINT8"}, {6, "DT_INT16"},
	{9, "DT_INT64"}, {11, "DT_DOUBLE"}, {12, "DT_BOOL"}, {27, "DT_BF16"}}

// dtypeHeader renders opRules as the emulator's csrc/testing/acl_dtypes.h.
func dtypeHeader() string {
	var b strings.Builder
	b.WriteString(`/*
 * The dtypes each ACLNN op takes, per tensor in the shim's order (out
 * first), on Atlas A2/A3; Atlas training and inference chips take no
 * BFLOAT16 in any. Written by go generate ./pkg/backends/npu from opRules
 * (pkg/backends/npu/dtypes.go, with the sources): edit that table, not this
 * file.
 */
#define DTB(d) (1ull << (d))

struct dtype_rule {
	const char *name;
	int tensors, same, max_dims; /* same: all tensors of one dtype */
	unsigned long long dtypes[10];
	/* ---- nn and indexing ops ---- */
	unsigned long long like; /* bit i: tensor i has tensor 0's dtype */
};

static const struct dtype_rule dtype_rules[] = {
`)
	for op := range npushim.NumOps {
		r := &opRules[op]
		same := 0
		if r.same {
			same = 1
		}
		fmt.Fprintf(&b, "\t{\"%s\", %d, %d, %d, {\n", r.name, len(r.tensors), same, r.maxDims)
		for _, s := range r.tensors {
			var names []string
			for _, d := range cDTypes {
				if s.has(int32(d.n)) {
					names = append(names, "DTB("+d.name+")")
				}
			}
			fmt.Fprintf(&b, "\t\t%s,\n", strings.Join(names, " | "))
		}
		if r.like != 0 {
			fmt.Fprintf(&b, "\t}, %#x},\n", r.like)
			continue
		}
		b.WriteString("\t}},\n")
	}
	b.WriteString("};\n")
	return b.String()
}

// TestDTypeHeaderIsCurrent fails when the emulator's dtype table is not the
// one opRules renders; MINDTORCH_WRITE_DTYPE_HEADER=1 (go generate) writes it.
func TestDTypeHeaderIsCurrent(t *testing.T) {
	for op := range npushim.NumOps {
		if opRules[op].name == "" || len(opRules[op].tensors) == 0 || len(opRules[op].tensors) > ruleTensors {
			t.Errorf("op %d has no rule", op)
		}
	}
	_, file, _, _ := runtime.Caller(0)
	path := filepath.Join(filepath.Dir(file), "..", "..", "..", "csrc", "testing", "acl_dtypes.h")
	want := dtypeHeader()
	if os.Getenv("MINDTORCH_WRITE_DTYPE_HEADER") == "1" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is not opRules' table: run go generate ./pkg/backends/npu", path)
	}
}

func TestChipOfAndCubeMathType(t *testing.T) {
	for soc, want := range map[string]chip{"Ascend910B3": chipA2, "Ascend910B1": chipA2, "Ascend910_9391": chipA2,
		"Ascend910A": chipA1, "Ascend910ProB": chipA1, "Ascend910B": chipA1, "Ascend310P3": chipA1, "": chipA2} {
		if got := chipOf(soc); got != want {
			t.Errorf("chipOf(%q) = %d, want %d", soc, got, want)
		}
	}
	saved := state.soc
	defer func() { state.soc = saved }()
	for _, c := range []struct {
		soc, env string
		want     int64
	}{{"Ascend910B3", "", 0}, {"Ascend910A", "", 2}, {"Ascend310P3", "", 2}, {"Ascend910B3", "1", 1}, {"Ascend910A", "9", 2}} {
		state.soc = c.soc
		t.Setenv("MINDTORCH_NPU_CUBE_MATH_TYPE", c.env)
		if got := cubeMathType(); got != c.want {
			t.Errorf("%s with MINDTORCH_NPU_CUBE_MATH_TYPE=%q: cubeMathType %d, want %d", c.soc, c.env, got, c.want)
		}
	}
}

// An operand the op does not take is declined with ErrNotImplemented,
// naming the ACLNN op, the dtype and the SoC; bfloat16 only on Atlas A2/A3.
func TestCheckDTypesDeclines(t *testing.T) {
	load()
	saved := state.soc
	defer func() { state.soc = saved }()
	state.soc = "Ascend910B3"
	f64 := kernel.Operand{DType: dtype.Float64, Shape: []int{2, 2}}
	err := checkDTypes(npushim.Matmul, []*kernel.Operand{&f64, &f64, &f64})
	if !errors.Is(err, kernel.ErrNotImplemented) || !strings.Contains(err.Error(), "aclnnMatmul takes no float64 (tensor 0) on Ascend910B3") {
		t.Errorf("float64 matmul: %v", err)
	}
	b := kernel.Operand{DType: dtype.BFloat16, Shape: []int{2}}
	if err := checkDTypes(npushim.Relu, []*kernel.Operand{&b, &b}); err != nil {
		t.Errorf("bfloat16 relu on Ascend910B3: %v", err)
	}
	state.soc = "Ascend310P3"
	if err := checkDTypes(npushim.Relu, []*kernel.Operand{&b, &b}); !errors.Is(err, kernel.ErrNotImplemented) ||
		!strings.Contains(err.Error(), "aclnnRelu takes no bfloat16 (tensor 0) on Ascend310P3") {
		t.Errorf("bfloat16 relu on Ascend310P3: %v", err)
	}
	f32, h := kernel.Operand{DType: dtype.Float32, Shape: []int{2}}, kernel.Operand{DType: dtype.Float16, Shape: []int{2}}
	if err := checkDTypes(npushim.Relu, []*kernel.Operand{&h, &f32}); !errors.Is(err, kernel.ErrNotImplemented) ||
		!strings.Contains(err.Error(), "aclnnRelu needs one dtype for all its tensors") {
		t.Errorf("relu of float32 into float16: %v", err)
	}
	seven := kernel.Operand{DType: dtype.Float32, Shape: []int{1, 1, 1, 1, 1, 1, 1}}
	if err := checkDTypes(npushim.Matmul, []*kernel.Operand{&seven, &seven, &seven}); !errors.Is(err, kernel.ErrNotImplemented) {
		t.Errorf("7-D matmul: %v", err)
	}
}
