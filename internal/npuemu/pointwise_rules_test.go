package npuemu

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestPointwiseOpsRules builds the emulator and
// csrc/testing/emu_pointwise_rules_test.c, which checks the pointwise math
// ops' rules: dtypes refused per the op_api sources, results rounded once
// per dtype, the scalar and promote rules, the A2/A3-only ops on an Atlas
// training SoC. With MINDTORCH_SANITIZE=1 it runs them under
// AddressSanitizer and UBSan too.
func TestPointwiseOpsRules(t *testing.T) {
	runPointwiseRules(t, t.TempDir(), nil)
	if os.Getenv("MINDTORCH_SANITIZE") == "1" {
		runPointwiseRules(t, t.TempDir(), sanitizers)
	}
}

func runPointwiseRules(t *testing.T, dir string, flags []string) {
	t.Helper()
	if err := Build(dir, All, flags...); err != nil {
		t.Fatal(err)
	}
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "csrc", "testing", "emu_pointwise_rules_test.c")
	bin := filepath.Join(dir, "pointwise_rules")
	if err := cc(flags, "-o", bin, src, "-L"+dir, "-lascendcl", "-lnnopbase", "-lopapi", "-l:"+Core, "-Wl,-rpath,"+dir,
		"-lm"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "UBSAN_OPTIONS=print_stacktrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("%v %v:\n%s", flags, err, out)
	}
}
