// Command linreg fits a linear regression with MindTorch and recovers the
// coefficients that made the data: y = 2 x1 - 3.4 x2 + 1.7 x3 + 4.2, plus a
// little noise. It uses nn.Linear, the mean squared error, SGD with momentum
// over shuffled mini batches from a data.Loader, and a StepLR schedule.
//
//	go run ./examples/linreg
//	go run ./examples/linreg -epochs 5
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mindtorch/mindtorch/pkg/data"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/optim/lrscheduler"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// The coefficients that make the data, which training should find.
var (
	trueWeights = []float32{2, -3.4, 1.7}
	trueBias    = float32(4.2)
)

// result is what training found.
type result struct {
	Weights []float32 // the fitted coefficients, in trueWeights' order
	Bias    float32
	Loss    float64 // the mean squared error over the data after training
}

func main() {
	epochs := flag.Int("epochs", 20, "passes over the data (at least 1)")
	flag.Parse()
	if _, err := run(*epochs, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "linreg:", err)
		os.Exit(1)
	}
}

// run makes the data, fits it for epochs passes, prints its progress to out
// and returns the fitted coefficients.
func run(epochs int, out io.Writer) (result, error) {
	if epochs < 1 {
		return result{}, fmt.Errorf("epochs must be at least 1, got %d", epochs)
	}
	const n, batchSize = 1000, 32
	g := torch.NewGenerator(0)
	x := torch.Randn([]int{n, len(trueWeights)}, torch.WithGenerator(g))
	w := torch.FromSlice(trueWeights, torch.WithShape(len(trueWeights), 1))
	noise := torch.Randn([]int{n, 1}, torch.WithGenerator(g)).MulScalar(0.01)
	y := x.MatMul(w).AddScalar(trueBias).Add(noise)
	ds, err := data.NewTensorDataset(x, y)
	if err != nil {
		return result{}, fmt.Errorf("dataset: %w", err)
	}
	loader, err := data.NewLoader[[]*torch.Tensor](ds, nil, data.Options{BatchSize: batchSize, Shuffle: true, Generator: g})
	if err != nil {
		return result{}, fmt.Errorf("loader: %w", err)
	}

	torch.ManualSeed(0)
	model := nn.NewLinear(len(trueWeights), 1)
	opt, err := optim.NewSGD(nn.Parameters(model), optim.LR(0.05), optim.Momentum(0.9))
	if err != nil {
		return result{}, err
	}
	sched, err := lrscheduler.NewStepLR(opt, 10, lrscheduler.Gamma(0.1))
	if err != nil {
		return result{}, err
	}
	for epoch := 1; epoch <= epochs; epoch++ {
		var total float64
		for batch, err := range loader.All(context.Background()) {
			if err != nil {
				return result{}, fmt.Errorf("epoch %d: %w", epoch, err)
			}
			opt.ZeroGrad()
			loss := nn.MSE(model.Forward(batch[0]), batch[1])
			if err := loss.Backward(); err != nil {
				return result{}, fmt.Errorf("epoch %d: %w", epoch, err)
			}
			if err := opt.Step(); err != nil {
				return result{}, fmt.Errorf("epoch %d: %w", epoch, err)
			}
			v, err := loss.Item()
			if err != nil {
				return result{}, fmt.Errorf("epoch %d: %w", epoch, err)
			}
			total += v * float64(batch[1].Shape()[0])
		}
		if err := sched.Step(); err != nil {
			return result{}, fmt.Errorf("epoch %d: %w", epoch, err)
		}
		fmt.Fprintf(out, "epoch %2d  mse %.6f\n", epoch, total/n)
	}

	var res result
	if res.Weights, err = torch.ToSlice[float32](model.Weight); err != nil {
		return result{}, err
	}
	bias, err := torch.ToSlice[float32](model.Bias)
	if err != nil {
		return result{}, err
	}
	res.Bias = bias[0]
	torch.NoGrad(func() { res.Loss, err = nn.MSE(model.Forward(x), y).Item() })
	if err != nil {
		return result{}, err
	}
	fmt.Fprintf(out, "fitted  weights %.3f  bias %.3f  (mse %.6f)\n", res.Weights, res.Bias, res.Loss)
	fmt.Fprintf(out, "true    weights %.3f  bias %.3f\n", trueWeights, trueBias)
	return res, nil
}
