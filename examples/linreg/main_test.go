package main

import (
	"bytes"
	"math"
	"testing"
)

// TestRecoversCoefficients fits for a few epochs and finds the coefficients
// that made the data.
func TestRecoversCoefficients(t *testing.T) {
	var out bytes.Buffer
	res, err := run(5, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	const tol = 0.02
	for i, w := range res.Weights {
		if math.Abs(float64(w-trueWeights[i])) > tol {
			t.Errorf("weight %d is %.4f, want %.4f", i, w, trueWeights[i])
		}
	}
	if len(res.Weights) != len(trueWeights) || math.Abs(float64(res.Bias-trueBias)) > tol || res.Loss > 1e-3 {
		t.Errorf("weights %v, bias %.4f, mse %g; want %v, %.4f and an mse near 1e-4\n%s",
			res.Weights, res.Bias, res.Loss, trueWeights, trueBias, out.String())
	}
}

func TestBadEpochs(t *testing.T) {
	if _, err := run(0, &bytes.Buffer{}); err == nil {
		t.Error("0 epochs accepted")
	}
}
