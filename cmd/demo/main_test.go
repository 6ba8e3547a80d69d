package main

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/internal/digits"
	"github.com/mindtorch/mindtorch/internal/npuemu"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/safetensors"
)

// asMain makes the test binary run the command itself (main, with the
// arguments after the binary's name), for tests that need a process of
// their own: a working directory elsewhere, an exit status, no emulator.
const asMain = "MINDTORCH_DEMO_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		main()
		os.Exit(0) // main exits itself; this is not reached
	}
	cleanup, err := npuemu.Setup() // the NPU runs below use the CANN emulator
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// command runs the test binary as the demo with args in dir, with env added
// to the environment, and returns its exit status, stdout and stderr.
func command(t *testing.T, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), asMain+"=1"), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

func TestDemoLearnsDigits(t *testing.T) {
	var out bytes.Buffer
	acc, err := run(config{device: "cpu", epochs: 10}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if acc < 0.95 {
		t.Errorf("held-out accuracy %.3f after 10 epochs, want >= 0.95\n%s", acc, out.String())
	}
}

// TestBadCommandLines checks that each bad command line is refused before
// anything runs, in one line that names the culprit once, with status 2.
func TestBadCommandLines(t *testing.T) {
	tests := []struct {
		args []string
		want string // the whole of stderr, but for a trailing newline
	}{
		{[]string{"-epochs", "-1"}, "demo: -epochs must be at least 1, got -1"},
		{[]string{"-epochs", "0", "-device", "npu"}, "demo: -epochs must be at least 1, got 0"},
		{[]string{"-device", "foo"}, `demo: -device: unknown device "foo": expected cpu, meta, npu, npu:N (or ascend, ascend:N)`},
		{[]string{"-device", "npu:x"}, `demo: -device: invalid device string "npu:x": the index must be a non-negative integer`},
		{[]string{"-device", "cpu:1"}, `demo: -device: invalid device string "cpu:1": cpu has only index 0`},
		{[]string{"-device", "meta"}, "demo: -device meta: meta tensors have shapes but no data, so the demo cannot train there; use cpu or npu[:N]"},
		{[]string{"extra"}, `demo: unexpected argument "extra": the demo takes flags only (demo -h lists them)`},
		{[]string{"-epochs", "1", "more", "args"}, `demo: unexpected argument "more": the demo takes flags only (demo -h lists them)`},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		code := demo(tc.args, &stdout, &stderr)
		if code != exitUsage || stderr.String() != tc.want+"\n" || stdout.Len() != 0 {
			t.Errorf("demo %q: status %d, stderr %q, stdout %q; want status %d, stderr %q and no output",
				tc.args, code, stderr.String(), stdout.String(), exitUsage, tc.want+"\n")
		}
	}

	// The flag package's own errors (it prints the usage after them) and -h.
	var stderr bytes.Buffer
	if code := demo([]string{"-epochs", "many"}, &bytes.Buffer{}, &stderr); code != exitUsage ||
		!strings.HasPrefix(stderr.String(), `invalid value "many" for flag -epochs`) {
		t.Errorf("demo -epochs many: status %d, stderr %q", code, stderr.String())
	}
	stderr.Reset()
	if code := demo([]string{"-h"}, &bytes.Buffer{}, &stderr); code != exitOK || !strings.Contains(stderr.String(), "-epochs") {
		t.Errorf("demo -h: status %d, stderr %q", code, stderr.String())
	}
}

// TestNoSuchNPU asks for an NPU beyond the cards found (one, in the emulator).
func TestNoSuchNPU(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := demo([]string{"-device", "npu:1000", "-epochs", "1"}, &stdout, &stderr)
	if code != exitFail || !strings.HasPrefix(stderr.String(), "demo: -device npu:1000: there is no NPU 1000 (") ||
		strings.Count(stderr.String(), "\n") != 1 || stdout.Len() != 0 {
		t.Errorf("status %d, stderr %q, stdout %q", code, stderr.String(), stdout.String())
	}
}

// TestNPUUnavailable runs the demo where CANN cannot be found: it says so
// once, with the reason, before printing anything else.
func TestNPUUnavailable(t *testing.T) {
	if os.Getenv("MINDTORCH_NPU_REAL") == "1" {
		t.Skip("MINDTORCH_NPU_REAL=1: CANN is installed")
	}
	for _, dir := range []string{"/usr/local/Ascend/cann/lib64", "/usr/local/Ascend/ascend-toolkit/latest/lib64"} {
		if _, err := os.Stat(dir); err == nil {
			t.Skipf("CANN is installed in %s", dir)
		}
	}
	empty := t.TempDir()
	code, stdout, stderr := command(t, empty,
		[]string{"MINDTORCH_NPU_LIB_DIR=" + empty, "ASCEND_HOME_PATH=", "ASCEND_TOOLKIT_HOME=", "LD_LIBRARY_PATH="},
		"-device", "npu", "-epochs", "1")
	const want = "demo: -device npu: the NPU is unavailable: the ACL runtime (libascendcl.so or libacl_rt.so) was not found in "
	if code != exitFail || !strings.HasPrefix(stderr, want) || strings.Count(stderr, "\n") != 1 ||
		strings.Count(stderr, "libascendcl.so") != 1 || strings.Count(stderr, empty) != 1 || stdout != "" {
		t.Errorf("status %d, stderr %q, stdout %q; want status 1, one line starting %q and no output",
			code, stderr, stdout, want)
	}
}

// TestRunsAnywhere runs the demo from a directory without the data, as a
// process of its own and in this one: it uses the embedded data set.
func TestRunsAnywhere(t *testing.T) {
	code, stdout, stderr := command(t, t.TempDir(), nil, "-epochs", "2", "-seed", "3")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "digits: 1797 images") ||
		!strings.Contains(stdout, "held-out accuracy") {
		t.Errorf("status %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}

	t.Chdir(t.TempDir())
	var out, errs bytes.Buffer
	if code := demo([]string{"-epochs", "1"}, &out, &errs); code != 0 || errs.Len() != 0 ||
		!strings.Contains(out.String(), "held-out accuracy") {
		t.Errorf("status %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errs.String())
	}
}

// TestDataFlag reads the data from a file named by -data.
func TestDataFlag(t *testing.T) {
	path := filepath.Join(t.TempDir(), "digits.csv.gz")
	if err := os.WriteFile(path, digits.Raw(), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if code := demo([]string{"-data", path, "-epochs", "1"}, &out, &errs); code != 0 ||
		!strings.Contains(out.String(), "digits: 1797 images") {
		t.Errorf("status %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errs.String())
	}
}

func TestDemoReportsBadData(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.csv.gz")
	if err := os.WriteFile(bad, []byte("not gzip"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run(config{data: bad, device: "cpu", epochs: 1}, &bytes.Buffer{}); err == nil {
		t.Error("a file that is not gzip was accepted")
	}
	var stdout, stderr bytes.Buffer
	missing := filepath.Join(t.TempDir(), "missing")
	if code := demo([]string{"-data", missing, "-epochs", "1"}, &stdout, &stderr); code != exitFail ||
		stderr.String() != "demo: open "+missing+": no such file or directory\n" {
		t.Errorf("a missing file: status %d, stderr %q", code, stderr.String())
	}
}

// TestDemoOnNPU runs the demo on the NPU (the CANN emulator here): it
// learns as on the CPU, to the same held-out accuracy.
func TestDemoOnNPU(t *testing.T) {
	cpu, err := run(config{device: "cpu", epochs: 4, seed: 1}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkDevice("npu"); err != nil {
		t.Fatal(err)
	}
	dev, err := run(config{device: "npu", epochs: 4, seed: 1, out: t.TempDir()}, &bytes.Buffer{}) // saved and reloaded too
	if err != nil {
		t.Fatal(err)
	}
	if dev != cpu || dev < 0.9 {
		t.Errorf("held-out accuracy %.4f on the NPU, %.4f on the CPU", dev, cpu)
	}
}

// TestDemoWritesFiles checks the checkpoint (the trained weights, which a
// fresh model scores as the trained one) and the PNG of the curves, and
// that a checkpoint of other weights is refused loudly.
func TestDemoWritesFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	var out bytes.Buffer
	acc, err := run(config{device: "cpu", epochs: 3, seed: 2, out: dir}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	checkpoint := filepath.Join(dir, "digits-mlp.safetensors")
	curves := filepath.Join(dir, "digits-curves.png")
	if !strings.Contains(out.String(), "checkpoint "+checkpoint+": reloaded") || !strings.Contains(out.String(), "curves "+curves) ||
		strings.Count(out.String(), "held-out accuracy") != 3+2 {
		t.Errorf("output does not say where the files went, or lacks an epoch:\n%s", out.String())
	}
	sd, err := safetensors.Load(checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	if len(sd) != 4 || sd["0.weight"] == nil || sd["2.bias"] == nil {
		t.Errorf("checkpoint holds %d tensors: %v", len(sd), sd)
	}
	f, err := os.Open(curves)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", curves, err)
	}
	if b := img.Bounds(); b.Dx() < 500 || b.Dy() < 200 {
		t.Errorf("%s is %v", curves, b)
	}

	// Other weights in the checkpoint: the reloaded model scores otherwise.
	images, labels, err := readData("")
	if err != nil {
		t.Fatal(err)
	}
	x, y := subset(images, labels, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	if err := safetensors.Save(checkpoint, nn.StateDict(newModel("cpu")), nil); err != nil {
		t.Fatal(err)
	}
	trained, err := accuracy(newModel("cpu"), x, y)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := checkCheckpoint(checkpoint, "cpu", x, y, trained+0.5); err == nil ||
		!strings.Contains(err.Error(), "does not hold the trained weights") {
		t.Errorf("a checkpoint of other weights: error %v", err)
	}
	if acc < 0.9 {
		t.Errorf("held-out accuracy %.3f after 3 epochs", acc)
	}
}

// TestNoFiles checks that -out "" writes nothing and says nothing of files.
func TestNoFiles(t *testing.T) {
	t.Chdir(t.TempDir())
	var out, errs bytes.Buffer
	if code := demo([]string{"-epochs", "1", "-out", "", "-quiet"}, &out, &errs); code != 0 || errs.Len() != 0 ||
		strings.Contains(out.String(), "checkpoint") || strings.Contains(out.String(), "curves") {
		t.Errorf("status %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errs.String())
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}

// TestOutIsAFile checks that an -out that cannot be a directory fails with
// the path in the error.
func TestOutIsAFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if code := demo([]string{"-epochs", "1", "-out", file}, &out, &errs); code != exitFail ||
		!strings.HasPrefix(errs.String(), "demo: checkpoint: ") || !strings.Contains(errs.String(), file) {
		t.Errorf("status %d, stderr %q", code, errs.String())
	}
}
