package main

import (
	"bytes"
	"compress/gzip"
	"strings"
	"testing"

	"github.com/mindtorch/mindtorch/internal/digits"
)

// TestLearnsDigits trains for five epochs (one learning-rate cut) and
// checks that the loss falls and the held-out accuracy, 97% when measured,
// is above 90%.
func TestLearnsDigits(t *testing.T) {
	var out bytes.Buffer
	res, err := run(5, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(res.Loss) != 5 || len(res.Accuracy) != 5 || len(res.LR) != 5 {
		t.Fatalf("%d losses, %d accuracies, %d rates; want 5 each\n%s", len(res.Loss), len(res.Accuracy), len(res.LR), out.String())
	}
	if acc := res.Accuracy[4]; acc < 0.9 {
		t.Errorf("held-out accuracy %.3f after 5 epochs, want >= 0.9\n%s", acc, out.String())
	}
	if res.Loss[4] >= res.Loss[0]/2 {
		t.Errorf("loss %.4f after 5 epochs, %.4f after the first: want it at least halved\n%s", res.Loss[4], res.Loss[0], out.String())
	}
	wantLR := []float64{lr, lr, lr, lr, lr * gamma}
	for i, v := range res.LR {
		if v != wantLR[i] {
			t.Errorf("epoch %d trained with lr %g, want %g", i+1, v, wantLR[i])
		}
	}
	if !strings.Contains(out.String(), "epoch   5") {
		t.Errorf("no line for epoch 5 in\n%s", out.String())
	}
}

func TestBadEpochs(t *testing.T) {
	if _, err := run(0, &bytes.Buffer{}); err == nil {
		t.Error("0 epochs accepted")
	}
}

func TestBadData(t *testing.T) {
	for name, csv := range map[string]string{
		"not gzip":   "1,2,3",
		"bad pixel":  gz(strings.Repeat("0,", 63) + "17,3\n"),
		"bad label":  gz(strings.Repeat("0,", 64) + "10\n"),
		"short line": gz("0,1\n"),
		"no images":  gz(""),
	} {
		if _, _, err := digits.Load(name, strings.NewReader(csv)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v, want one naming the input", name, err)
		}
	}
}

// gz gzips s.
func gz(s string) string {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	_, _ = z.Write([]byte(s)) // a bytes.Buffer does not fail
	_ = z.Close()
	return b.String()
}
