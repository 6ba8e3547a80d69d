// Command cnn trains a small convolutional network on the UCI handwritten
// digits (8x8 grey images, 1797 of them) and reports, per epoch, the mean
// training loss and the accuracy on a held-out fifth of the images.
//
// The network is
//
//	Conv2d(1, 16, 3, padding=1) BatchNorm2d(16) ReLU MaxPool2d(2)
//	Conv2d(16, 32, 3, padding=1) ReLU AdaptiveAvgPool2d(1) Flatten
//	Dropout(0.25) Linear(32, 10)
//
// trained with SGD with momentum on shuffled batches from a data.Loader,
// its learning rate halved every few epochs by a StepLR scheduler.
// parity_test.go trains the same network from PyTorch's initial weights
// on fixed batches and checks every loss against PyTorch's.
//
// The digits come from internal/digits, embedded in the binary.
//
//	go run ./examples/cnn
//	go run ./examples/cnn -epochs 20
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	"github.com/mindtorch/mindtorch/internal/digits"
	"github.com/mindtorch/mindtorch/pkg/data"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/optim/lrscheduler"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Training settings.
const (
	batchSize = 32
	lr        = 0.1
	momentum  = 0.9
	stepSize  = 4   // epochs between learning-rate cuts
	gamma     = 0.5 // the cut
	dropout   = 0.25
	seed      = 0
)

// newModel makes the CNN from the default generator: seeded as PyTorch's,
// it starts from PyTorch's weights.
func newModel() *nn.Sequential {
	return nn.NewSequential(
		nn.NewConv2d(1, 16, []int{3}, nn.ConvConfig{Padding: []int{1}}),
		nn.NewBatchNorm2d(16, true, true),
		nn.ReLU(),
		nn.MaxPool2d([]int{2}, torch.MaxPoolOptions{}),
		nn.NewConv2d(16, 32, []int{3}, nn.ConvConfig{Padding: []int{1}}),
		nn.ReLU(),
		nn.AdaptiveAvgPool2d(1),
		nn.Flatten(1, -1),
		nn.NewDropout(dropout),
		nn.NewLinear(32, 10),
	)
}

// result is what run measured, per epoch.
type result struct {
	Loss     []float64 // mean training cross-entropy
	Accuracy []float64 // share of held-out images classified right
	LR       []float64 // learning rate the epoch trained with
}

func main() {
	epochs := flag.Int("epochs", 10, "epochs to train (at least 1)")
	flag.Parse()
	if _, err := run(*epochs, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "cnn:", err)
		os.Exit(1)
	}
}

// run trains the CNN for epochs epochs, printing its progress to out.
func run(epochs int, out io.Writer) (result, error) {
	if epochs < 1 {
		return result{}, fmt.Errorf("epochs must be at least 1, got %d", epochs)
	}
	images, labels, err := digits.Embedded()
	if err != nil {
		return result{}, err
	}
	n := len(labels)
	order := rand.New(rand.NewPCG(seed, 1)).Perm(n)
	nTest := n / 5
	trainX, trainY := subset(images, labels, order[nTest:])
	testX, testY := subset(images, labels, order[:nTest])
	fmt.Fprintf(out, "digits: %d images of 8x8 pixels, %d for training, %d held out\n", n, n-nTest, nTest)

	ds, err := data.NewTensorDataset(trainX, trainY)
	if err != nil {
		return result{}, fmt.Errorf("training set: %w", err)
	}
	loader, err := data.NewLoader[[]*torch.Tensor](ds, nil, data.Options{
		BatchSize: batchSize, Shuffle: true, Generator: torch.NewGenerator(seed),
	})
	if err != nil {
		return result{}, fmt.Errorf("loader: %w", err)
	}

	torch.ManualSeed(seed)
	model := newModel()
	fmt.Fprintln(out, model)
	opt, err := optim.NewSGD(nn.Parameters(model), optim.LR(lr), optim.Momentum(momentum))
	if err != nil {
		return result{}, fmt.Errorf("optimizer: %w", err)
	}
	sched, err := lrscheduler.NewStepLR(opt, stepSize, lrscheduler.Gamma(gamma))
	if err != nil {
		return result{}, fmt.Errorf("scheduler: %w", err)
	}
	fmt.Fprintf(out, "SGD lr %g momentum %g, StepLR every %d epochs by %g, batch %d, %d epochs\n",
		lr, momentum, stepSize, gamma, batchSize, epochs)

	var res result
	for epoch := 1; epoch <= epochs; epoch++ {
		epochLR := sched.LastLR()[0]
		loss, err := trainEpoch(model, opt, loader)
		if err != nil {
			return res, fmt.Errorf("epoch %d: %w", epoch, err)
		}
		if err := sched.Step(); err != nil {
			return res, fmt.Errorf("epoch %d: scheduler: %w", epoch, err)
		}
		acc, err := accuracy(model, testX, testY)
		if err != nil {
			return res, fmt.Errorf("epoch %d: held-out accuracy: %w", epoch, err)
		}
		res.Loss = append(res.Loss, loss)
		res.Accuracy = append(res.Accuracy, acc)
		res.LR = append(res.LR, epochLR)
		fmt.Fprintf(out, "epoch %3d  lr %.4f  loss %.4f  held-out accuracy %5.1f%%\n", epoch, epochLR, loss, 100*acc)
	}
	return res, nil
}

// trainEpoch takes one step per batch of loader and returns the mean loss
// per image.
func trainEpoch(model *nn.Sequential, opt optim.Optimizer, loader *data.Loader[[]*torch.Tensor, []*torch.Tensor]) (float64, error) {
	var total float64
	seen := 0
	for batch, err := range loader.All(context.Background()) {
		if err != nil {
			return 0, fmt.Errorf("loading a batch: %w", err)
		}
		x, y := batch[0], batch[1]
		opt.ZeroGrad()
		loss := nn.CrossEntropy(model.Forward(x), y)
		if err := loss.Backward(); err != nil {
			return 0, fmt.Errorf("backward: %w", err)
		}
		if err := opt.Step(); err != nil {
			return 0, fmt.Errorf("step: %w", err)
		}
		v, err := loss.Item()
		if err != nil {
			return 0, fmt.Errorf("loss: %w", err)
		}
		b := y.Shape()[0]
		total += v * float64(b)
		seen += b
	}
	if seen == 0 {
		return 0, fmt.Errorf("the loader gave no batches")
	}
	return total / float64(seen), nil
}

// accuracy is the share of images x whose largest logit is their label y,
// with the model in evaluation mode (running BatchNorm statistics, no
// dropout); the model is back in training mode afterwards.
func accuracy(model *nn.Sequential, x, y *torch.Tensor) (float64, error) {
	if err := nn.Eval(model); err != nil {
		return 0, err
	}
	var right float64
	var err error
	torch.NoGrad(func() {
		right, err = model.Forward(x).ArgmaxDim(1, false).Eq(y).ToDType(torch.Float32).Sum().Item()
	})
	if terr := nn.Train(model, true); err == nil {
		err = terr
	}
	return right / float64(y.Shape()[0]), err
}

// subset returns the images at rows idx as a [len(idx), 1, 8, 8] tensor
// and their labels.
func subset(images []float32, labels []int64, idx []int) (*torch.Tensor, *torch.Tensor) {
	x := make([]float32, 0, len(idx)*64)
	y := make([]int64, 0, len(idx))
	for _, i := range idx {
		x = append(x, images[i*64:(i+1)*64]...)
		y = append(y, labels[i])
	}
	return torch.FromSlice(x, torch.WithShape(len(idx), 1, 8, 8)), torch.FromSlice(y)
}
