// Package npuemu builds the CANN emulator (csrc/testing) for tests: host-memory
// libraries exporting the ACL/ACLNN symbols under CANN's library names, each
// only its own, a fixture of CANN's rules and not a simulator of the
// hardware. Tests call Setup from TestMain; with MINDTORCH_NPU_REAL=1 (make
// test-npu) they use the real CANN instead.
package npuemu

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Core is the emulator's core object: the state all its libraries share.
// It exports only names with the reserved prefix mtemu_, among them
// mtemu_counters.
const Core = "libmtemu_core.so"

// All is every library name the emulator can be built as, as a CANN 8.5
// installation has them: both runtime names, libnnopbase.so, the aggregate
// operator library and the per-repository ones.
var All = []string{"libascendcl.so", "libacl_rt.so", "libnnopbase.so", "libopapi.so", "libopapi_math.so", "libopapi_nn.so"}

// mathOps are the ops of the emulator that CANN ships in ops-math
// (hicann/ops-math docs/zh/op_api_list.md, math/add/op_api/aclnn_add.h for
// Adds, math/greater_equal for GeTensor); every other op is in ops-nn
// (Relu, Sigmoid, Gelu, ThresholdBackward, the softmaxes, Matmul).
var mathOps = []string{"Add", "Sub", "Mul", "Div", "Maximum", "Minimum", "Adds", "Muls", "Neg", "Exp", "Log", "Sqrt", "Abs",
	"Tanh", "ReduceSum", "Mean", "Amax", "Cast", "InplaceCopy", "InplaceFillScalar", "InplaceZero", "ArgMax", "EqTensor",
	"NeTensor", "LtTensor", "LeTensor", "GtTensor", "GeTensor", "EqScalar", "NeScalar", "LtScalar", "LeScalar", "GtScalar",
	"GeScalar", "SWhere", "Clamp", "PowTensorTensor", "PowTensorScalar",
	// ---- pointwise math ops ---- (the activations, Erfinv and Logit are ops-nn's)
	"Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Asinh", "Acosh", "Atanh", "Sinh", "Cosh", "Erf", "Erfc", "Exp2", "Expm1",
	"Log2", "Log10", "Log1p", "Rsqrt", "Reciprocal", "Sinc", "Sign", "Floor", "Ceil", "Round", "Trunc", "Frac", "IsInf",
	"IsFinite", "IsPosInf", "IsNegInf", "Signbit", "BitwiseNot", "LogicalNot", "Hardtanh", "NanToNum",
	"RemainderTensorTensor", "FmodTensor", "Atan2", "LogAddExp", "BitwiseAndTensor", "BitwiseOrTensor", "BitwiseXorTensor",
	"LogicalAnd", "LogicalOr", "LogicalXor", "ClampTensor", "Lerp", "Lerps", "All", "Any", "LogSumExp", "VarCorrection",
	"Std",
	// ---- nn and indexing ops ---- (ops-math's op_api_list.md: math/cumsum, arg_min, reduce_min,
	// arg_max_with_value, arg_min_with_value, reduce_prod, sort; conversion/concat_d, masked_fill;
	// the rest, IndexSelect, Gather, the scatters, IndexAdd, Topk, Flip, BatchNorm, Convolution, are ops-nn's)
	"Cumsum", "ArgMin", "Amin", "MaxDim", "MinDim", "Prod", "ProdDim", "Sort", "Cat", "InplaceMaskedFillScalar",
	// ---- more ops ---- (math/dot, math/cumprod, math/search_sorted, conversion/masked_select_v3;
	// Nonzero is ops-nn's index/non_zero)
	"Dot", "Cumprod", "SearchSorted", "MaskedSelect",
	// ---- creation ops ---- (math/range, math/lin_space)
	"Arange", "Linspace",
	// ---- svd ---- (math/svd)
	"Svd",
	// ---- random ops ---- (random/dsa_random_uniform, dsa_random_normal, dsa_gen_bit_mask)
	"InplaceUniform", "InplaceNormal", "InplaceRandom", "InplaceBernoulli", "BernoulliTensor"}

// versionScript is the GNU ld version script that makes library name export
// its symbols and nothing else.
func versionScript(name string) (string, error) {
	var math []string
	for _, op := range mathOps {
		math = append(math, "aclnn"+op+";", "aclnn"+op+"GetWorkspaceSize;")
	}
	const runtime = "aclInit; aclFinalize; aclGetRecentErrMsg; aclrt*;"
	var global, local string
	switch name {
	case Core:
		global = "mtemu_*;"
	case "libascendcl.so", "libacl_rt.so":
		global = runtime
	case "libnnopbase.so":
		global = "aclCreate*; aclDestroy*; aclSetAclOpExecutorRepeatable; aclnnInit; aclnnFinalize;"
	case "libopapi.so":
		global, local = "aclnn*;", "aclnnInit; aclnnFinalize;"
	case "libopapi_math.so":
		global = strings.Join(math, " ")
	case "libopapi_nn.so": // exact names take precedence over the wildcard
		global, local = "aclnn*;", "aclnnInit; aclnnFinalize; "+strings.Join(math, " ")
	default:
		return "", fmt.Errorf("the CANN emulator has no library %s", name)
	}
	return fmt.Sprintf("{\n  global: %s\n  local: %s *;\n};\n", global, local), nil
}

// Setup builds the emulator into a temporary directory under every name of
// All, as CANN 8.5 installs them, and points MINDTORCH_NPU_LIB_DIR at it. It
// returns a function that removes the directory. With MINDTORCH_NPU_REAL=1
// it does nothing.
func Setup() (func(), error) {
	if os.Getenv("MINDTORCH_NPU_REAL") == "1" {
		return func() {}, nil
	}
	dir, err := os.MkdirTemp("", "mindtorch-cann-emulator-")
	if err != nil {
		return nil, err
	}
	if err := Build(dir, All); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	os.Setenv("MINDTORCH_NPU_LIB_DIR", dir)
	return func() { os.RemoveAll(dir) }, nil
}

// Build compiles the emulator into dir: the core object, and one library
// per name of names (those of All), each exporting only its own symbols and
// linked to the core. flags go to every compiler and linker call
// (-DMTEMU_OMIT_SOFTMAX leaves out aclnnSoftmax; -fsanitize=... builds
// under a sanitizer).
func Build(dir string, names []string, flags ...string) error {
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "csrc", "testing", "acl_emulator.c")
	obj := filepath.Join(dir, "mtemu.o")
	defer os.Remove(obj)
	err := cc(flags, "-O1", "-fPIC", "-c", "-o", obj, src)
	if err == nil {
		err = link(dir, Core, flags, "-DMTEMU_CORE", "-O0", src) // its code is never called
	}
	for _, name := range names {
		if err == nil {
			err = link(dir, name, flags, obj, "-L"+dir, "-l:"+Core, "-Wl,-rpath,$ORIGIN", "-ldl")
		}
	}
	if err != nil {
		return fmt.Errorf("building the CANN emulator: %w", err)
	}
	return nil
}

// link builds the shared library dir/name from the inputs with its version
// script.
func link(dir, name string, flags []string, inputs ...string) error {
	script, err := versionScript(name)
	if err != nil {
		return err
	}
	vs := filepath.Join(dir, name+".map")
	if err := os.WriteFile(vs, []byte(script), 0o644); err != nil {
		return err
	}
	defer os.Remove(vs)
	args := append([]string{"-fPIC", "-shared", "-Wl,-soname," + name, "-Wl,--version-script=" + vs, "-o",
		filepath.Join(dir, name)}, inputs...)
	return cc(flags, append(args, "-lm", "-lpthread")...)
}

// cc runs the C compiler ($CC, else gcc) with flags and args.
func cc(flags []string, args ...string) error {
	compiler := os.Getenv("CC")
	if compiler == "" {
		compiler = "gcc"
	}
	out, err := exec.Command(compiler, append(append([]string{}, flags...), args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v: %s", compiler, strings.Join(args, " "), err, out)
	}
	return nil
}
