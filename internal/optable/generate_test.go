package optable_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mindtorch/mindtorch/internal/optable"
)

// TestGeneratedFilesAreCurrent regenerates every file from the table and
// compares it with the committed one: an edit of the table without
// `go generate ./internal/optable`, or an edit of a generated file by
// hand, fails here.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	files, err := optable.Generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		old, err := os.ReadFile(filepath.Join("..", "..", f.Path))
		if err != nil {
			t.Errorf("%s: %v (run go generate ./internal/optable)", f.Path, err)
			continue
		}
		if d := cmp.Diff(string(old), string(f.Data)); d != "" {
			t.Errorf("%s is stale; run go generate ./internal/optable (-committed +generated):\n%s", f.Path, d)
		}
	}
}

func TestCName(t *testing.T) {
	for id, want := range map[string]string{"Add": "MT_ADD", "BitwiseAnd": "MT_BITWISE_AND", "Log1p": "MT_LOG1P",
		"IsNan": "MT_IS_NAN", "Relu6": "MT_RELU6", "NanToNum": "MT_NAN_TO_NUM", "Atan2": "MT_ATAN2"} {
		if got := optable.CName(id); got != want {
			t.Errorf("CName(%s) = %s, want %s", id, got, want)
		}
	}
}
