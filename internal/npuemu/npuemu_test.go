package npuemu

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestEmulatorEnforcesCANNRules builds the emulator and a C program that
// calls its symbols directly and checks each rule it claims: a context per
// thread, aligned and in-bounds tensors in elements, single-use
// executors and their discarding, no implicit synchronisation, streams
// that run at once, events, each library's own symbols, the error codes,
// the counters, and arithmetic exact per dtype (integer extremes wrap,
// casts round).
func TestEmulatorEnforcesCANNRules(t *testing.T) {
	runRules(t, t.TempDir(), nil)
}

// sanitizers are the flags of the sanitizer build: AddressSanitizer (with
// LeakSanitizer) and UBSan, every finding fatal.
var sanitizers = []string{"-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g"}

// TestEmulatorRulesUnderSanitizers runs the same checks with the emulator
// and the checks built under AddressSanitizer and UBSan, which see what the
// checks cannot: memory read after it is freed, leaks, overflows, undefined
// behaviour. It runs with MINDTORCH_SANITIZE=1 (make test-sanitize, part of
// make test), and is skipped, saying so, when the C compiler cannot build
// and run a program with the sanitizers.
func TestEmulatorRulesUnderSanitizers(t *testing.T) {
	if os.Getenv("MINDTORCH_SANITIZE") != "1" {
		t.Skip("set MINDTORCH_SANITIZE=1 (make test-sanitize)")
	}
	dir := t.TempDir()
	probe := filepath.Join(dir, "probe")
	if err := os.WriteFile(probe+".c", []byte("#include <stdlib.h>\nint main(void) { free(malloc(1)); return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cc(sanitizers, "-o", probe, probe+".c"); err != nil {
		t.Skipf("the C compiler cannot build with %s: %v", strings.Join(sanitizers, " "), err)
	}
	if out, err := exec.Command(probe).CombinedOutput(); err != nil {
		t.Skipf("a program built with the sanitizers does not run here: %v: %s", err, out)
	}
	runRules(t, dir, sanitizers)
}

// runRules builds the emulator and the checks into dir with flags and runs
// them.
func runRules(t *testing.T, dir string, flags []string) {
	t.Helper()
	if err := Build(dir, All, flags...); err != nil {
		t.Fatal(err)
	}
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "csrc", "testing", "emulator_rules_test.c")
	bin := filepath.Join(dir, "rules")
	if err := cc(flags, "-o", bin, src, "-L"+dir, "-lascendcl", "-lnnopbase", "-lopapi", "-l:"+Core, "-Wl,-rpath,"+dir, "-ldl",
		"-lpthread"); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, dir)
	cmd.Env = append(os.Environ(), "UBSAN_OPTIONS=print_stacktrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("%v:\n%s", err, out)
	}
}
