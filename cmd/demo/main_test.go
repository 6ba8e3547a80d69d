package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mindtorch/mindtorch/internal/npuemu"
)

func TestMain(m *testing.M) {
	cleanup, err := npuemu.Setup() // the NPU run below uses the CANN emulator
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}

func TestDemoLearnsDigits(t *testing.T) {
	acc, err := run("", "cpu", 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if acc < 0.95 {
		t.Errorf("held-out accuracy %.3f after 10 epochs, want >= 0.95", acc)
	}
}

func TestDemoReportsBadData(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.csv.gz")
	if err := os.WriteFile(bad, []byte("not gzip"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := run(bad, "cpu", 1, 0); err == nil {
		t.Error("a file that is not gzip was accepted")
	}
	if _, err := run(filepath.Join(t.TempDir(), "missing"), "cpu", 1, 0); err == nil {
		t.Error("a missing file was accepted")
	}
	if _, err := run("", "tpu", 1, 0); err == nil {
		t.Error("an unknown device was accepted")
	}
}

// TestDemoOnNPU runs the demo on the NPU (the CANN emulator here): it
// learns as on the CPU, to the same held-out accuracy.
func TestDemoOnNPU(t *testing.T) {
	cpu, err := run("", "cpu", 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := run("", "npu", 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	if dev != cpu || dev < 0.9 {
		t.Errorf("held-out accuracy %.4f on the NPU, %.4f on the CPU", dev, cpu)
	}
}
