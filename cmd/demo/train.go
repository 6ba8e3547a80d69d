package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"time"

	"github.com/mindtorch/mindtorch/pkg/data"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// batchSize is the number of images per training step.
const batchSize = 64

// history is what each epoch measured, for the plot.
type history struct {
	loss     []float64 // mean cross-entropy over the epoch's batches
	trainAcc []float64 // share of training images right while training
	testAcc  []float64 // share of held-out images right after the epoch
}

// newModel makes the demo's MLP on dev, from the default generator.
func newModel(dev string) *nn.Sequential {
	return nn.NewSequential(nn.NewLinear(64, 128, torch.WithDevice(dev)), nn.ReLU(), nn.NewLinear(128, 10, torch.WithDevice(dev)))
}

// run trains as cfg says, prints its progress to out, writes the checkpoint
// and the plot to cfg.out (unless it is "") and returns the held-out
// accuracy.
func run(cfg config, out io.Writer) (float64, error) {
	dev, epochs, seed := cfg.device, cfg.epochs, cfg.seed
	for _, b := range torch.Backends() {
		state := "available"
		if !b.Available {
			state = "not available"
		}
		fmt.Fprintf(out, "backend %-4s %s: %s\n", b.Device, state, b.Detail)
	}
	images, labels, err := readData(cfg.data)
	if err != nil {
		return 0, err
	}
	n := len(labels)
	order := rand.New(rand.NewPCG(seed, 1)).Perm(n)
	nTest := n / 5
	nTrain := n - nTest
	fmt.Fprintf(out, "digits: %d images of 8x8 pixels, %d for training, %d held out\n", n, nTrain, nTest)

	// The training images stay on the host; the loader shuffles them with
	// its own seeded generator and each batch goes to the device.
	trainX, trainY := subset(images, labels, order[nTest:])
	ds, err := data.NewTensorDataset(trainX, trainY)
	if err != nil {
		return 0, fmt.Errorf("training set: %w", err)
	}
	loader, err := data.NewLoader[[]*torch.Tensor](ds, nil, data.Options{
		BatchSize: batchSize, Shuffle: true, Generator: torch.NewGenerator(seed),
	})
	if err != nil {
		return 0, fmt.Errorf("loader: %w", err)
	}
	testX, testY := subset(images, labels, order[:nTest])
	if testX, testY, err = toDevice(dev, testX, testY); err != nil {
		return 0, fmt.Errorf("held-out images to %s: %w", dev, err)
	}

	torch.ManualSeed(seed)
	model := newModel(dev)
	opt, err := optim.NewAdam(nn.Parameters(model), optim.LR(3e-3))
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(out, "model: Linear(64, 128) ReLU Linear(128, 10) on %s, Adam lr 3e-3, batch %d, %d epochs\n", dev, batchSize, epochs)

	var hist history
	start := time.Now()
	for epoch := 1; epoch <= epochs; epoch++ {
		bar := newBar(out, cfg.quiet, loader.Len(), fmt.Sprintf("epoch %d/%d", epoch, epochs))
		loss, trainAcc, err := trainEpoch(model, opt, loader, dev, bar)
		if err != nil {
			return 0, fmt.Errorf("epoch %d: %w", epoch, err)
		}
		testAcc, err := accuracy(model, testX, testY)
		if err != nil {
			return 0, fmt.Errorf("epoch %d: held-out accuracy: %w", epoch, err)
		}
		hist.loss = append(hist.loss, loss)
		hist.trainAcc = append(hist.trainAcc, trainAcc)
		hist.testAcc = append(hist.testAcc, testAcc)
		fmt.Fprintf(out, "epoch %3d  loss %.4f  train accuracy %5.1f%%  held-out accuracy %5.1f%%\n",
			epoch, loss, 100*trainAcc, 100*testAcc)
	}
	elapsed := time.Since(start)
	acc := hist.testAcc[len(hist.testAcc)-1]
	steps := epochs * loader.Len()
	fmt.Fprintf(out, "held-out accuracy %.1f%% (%d images); training took %v (%d steps, %.0f us per step, %d cores)\n",
		100*acc, nTest, elapsed.Round(time.Millisecond), steps, float64(elapsed.Microseconds())/float64(steps), runtime.GOMAXPROCS(0))

	if cfg.out == "" {
		return acc, nil
	}
	checkpoint := filepath.Join(cfg.out, "digits-mlp.safetensors")
	if err := saveCheckpoint(checkpoint, model, cfg, acc); err != nil {
		return 0, err
	}
	reloaded, err := checkCheckpoint(checkpoint, dev, testX, testY, acc)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(out, "checkpoint %s: reloaded into a fresh model, held-out accuracy %.1f%%, as trained\n", checkpoint, 100*reloaded)
	curves := filepath.Join(cfg.out, "digits-curves.png")
	if err := plotHistory(curves, hist); err != nil {
		return 0, err
	}
	fmt.Fprintf(out, "curves %s: loss and accuracy per epoch\n", curves)
	return acc, nil
}

// trainEpoch takes one step per batch of loader and returns the mean loss
// and the share of images the model got right while training on them.
func trainEpoch(model nn.Layer, opt optim.Optimizer, loader *data.Loader[[]*torch.Tensor, []*torch.Tensor], dev string, bar progress) (float64, float64, error) {
	defer bar.done()
	var total, right float64
	seen := 0
	for batch, err := range loader.All(context.Background()) {
		if err != nil {
			return 0, 0, fmt.Errorf("loading a batch: %w", err)
		}
		x, y, err := toDevice(dev, batch[0], batch[1])
		if err != nil {
			return 0, 0, fmt.Errorf("batch to %s: %w", dev, err)
		}
		n := y.Shape()[0]
		opt.ZeroGrad()
		logits := model.Forward(x)
		loss := nn.CrossEntropy(logits, y)
		if err := loss.Backward(); err != nil {
			return 0, 0, err
		}
		if err := opt.Step(); err != nil {
			return 0, 0, err
		}
		v, err := loss.Item()
		if err != nil {
			return 0, 0, err
		}
		r, err := correct(logits.Detach(), y)
		if err != nil {
			return 0, 0, err
		}
		total += v * float64(n)
		right += r
		seen += n
		x.Release()
		y.Release()
		bar.add()
	}
	return total / float64(seen), right / float64(seen), nil
}

// toDevice moves x and y to dev.
func toDevice(dev string, x, y *torch.Tensor) (*torch.Tensor, *torch.Tensor, error) {
	x, err := x.To(dev)
	if err != nil {
		return nil, nil, err
	}
	y, err = y.To(dev)
	if err != nil {
		return nil, nil, err
	}
	return x, y, nil
}

// accuracy is the share of images whose largest logit is their label.
func accuracy(model nn.Layer, x, y *torch.Tensor) (float64, error) {
	if err := nn.Eval(model); err != nil {
		return 0, err
	}
	defer func() { _ = nn.Train(model, true) }() // cannot fail: Eval walked the model
	var right float64
	var err error
	torch.NoGrad(func() { right, err = correct(model.Forward(x), y) })
	return right / float64(y.Shape()[0]), err
}

// correct counts the rows of logits whose largest value is at their label.
func correct(logits, y *torch.Tensor) (float64, error) {
	return logits.ArgmaxDim(1, false).Eq(y).ToDType(torch.Float32).Sum().Item()
}
