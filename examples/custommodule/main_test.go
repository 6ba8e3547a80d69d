package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSavesAndReloads trains a Ring briefly, and checks the parameters
// package nn found in its fields, its accuracy, and that the reloaded copy
// is the same model.
func TestSavesAndReloads(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	res, err := run(dir, 100, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	want := []string{"temperature", "hidden.weight", "hidden.bias", "out.weight", "out.bias"}
	if !slices.Equal(res.Names, want) {
		t.Errorf("parameters %q, want %q", res.Names, want)
	}
	if res.Saved != len(want)+1 { // and the buffer input_scale
		t.Errorf("%d tensors saved, want %d", res.Saved, len(want)+1)
	}
	if !res.Same || res.Reloaded != res.Accuracy || res.Accuracy < 0.9 {
		t.Errorf("accuracy %.3f, reloaded %.3f, same logits %v; want >= 0.9, equal, true\n%s",
			res.Accuracy, res.Reloaded, res.Same, out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "ring.safetensors")); err != nil {
		t.Error(err)
	}
}

func TestReportsBadDir(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	if _, err := run(missing, 1, &bytes.Buffer{}); err == nil {
		t.Error("saving into a missing directory did not fail")
	}
}
