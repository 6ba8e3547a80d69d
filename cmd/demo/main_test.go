package main

import (
	"os"
	"path/filepath"
	"testing"
)

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
