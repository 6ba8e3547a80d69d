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
// executors, no implicit synchronisation, the error codes, the counters,
// and arithmetic exact per dtype (integer extremes wrap, casts round).
func TestEmulatorEnforcesCANNRules(t *testing.T) {
	dir := t.TempDir()
	if err := Build(dir, []string{"libascendcl.so"}); err != nil {
		t.Fatal(err)
	}
	_, file, _, _ := runtime.Caller(0)
	src := filepath.Join(filepath.Dir(file), "..", "..", "csrc", "testing", "emulator_rules_test.c")
	bin := filepath.Join(dir, "rules")
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	if out, err := exec.Command(cc, "-o", bin, src, "-L"+dir, "-lascendcl", "-Wl,-rpath,"+dir, "-lpthread").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	out, err := exec.Command(bin).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Errorf("%v:\n%s", err, out)
	}
}
