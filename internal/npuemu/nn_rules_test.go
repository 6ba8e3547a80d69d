package npuemu

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestEmulatorNNRules builds the emulator and the C checks of its nn and
// indexing ops (csrc/testing/emulator_nn_rules_test.c), of its more ops
// (emulator_more_rules_test.c), of its norm ops (emulator_norm_rules_test.c),
// of its pool ops (emulator_pool_rules_test.c), of its creation ops
// (emulator_creation_rules_test.c), of aclnnSvd (emulator_svd_rules_test.c)
// and of its random ops (emulator_random_rules_test.c): each op refuses what
// its op_api source refuses, computes exactly (the random ops: by the
// emulator's documented draw model), faults on an index out of range at the
// synchronize; tensor lists and bool arrays are counted.
// With MINDTORCH_SANITIZE=1 (make test-sanitize) the emulator and the checks
// are built under AddressSanitizer and UBSan too.
func TestEmulatorNNRules(t *testing.T) {
	runNNRules(t, t.TempDir(), nil)
	if os.Getenv("MINDTORCH_SANITIZE") == "1" {
		t.Run("sanitizers", func(t *testing.T) { runNNRules(t, t.TempDir(), sanitizers) })
	}
}

func runNNRules(t *testing.T, dir string, flags []string) {
	t.Helper()
	if err := Build(dir, All, flags...); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"emulator_nn_rules_test.c", "emulator_more_rules_test.c", "emulator_norm_rules_test.c",
		"emulator_pool_rules_test.c", "emulator_creation_rules_test.c", "emulator_svd_rules_test.c",
		"emulator_random_rules_test.c"} {
		runRulesFile(t, dir, name, flags)
	}
}

// runRulesFile builds the C checks of file name (in csrc/testing) against the
// emulator in dir and runs them.
func runRulesFile(t *testing.T, dir, name string, flags []string) {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "csrc", "testing", name)
	bin := filepath.Join(dir, strings.TrimSuffix(name, ".c"))
	if err := cc(flags, "-o", bin, src, "-L"+dir, "-lascendcl", "-lnnopbase", "-lopapi", "-l:"+Core, "-Wl,-rpath,"+dir, "-ldl",
		"-lpthread", "-lm"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "UBSAN_OPTIONS=print_stacktrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("%s: %v:\n%s", name, err, out)
	}
}
