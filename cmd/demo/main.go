// Command demo trains a small neural network on the UCI handwritten digits
// (1797 images of 8x8 pixels, 10 classes; data/digits.csv.gz) with
// MindTorch: an MLP 64-128-10 written with nn, cross-entropy, Adam, mini
// batches of 64. It prints what the backends found, the loss and accuracy
// as training goes, and the accuracy on the 20% of the images it never
// trained on.
//
//	go run ./cmd/demo                  # on the CPU
//	go run ./cmd/demo -device npu      # on an Ascend NPU (CANN installed)
//	go run ./cmd/demo -epochs 50 -seed 7
package main

import (
	"bufio"
	"compress/gzip"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

func main() {
	data := flag.String("data", "", "the digits CSV (gzip), default data/digits.csv.gz next to the module")
	dev := flag.String("device", "cpu", "where to train: cpu, or npu[:N] where available")
	epochs := flag.Int("epochs", 30, "passes over the training images")
	seed := flag.Uint64("seed", 0, "seed of the weights and of the split and batch order")
	flag.Parse()
	if _, err := run(*data, *dev, *epochs, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// run trains and returns the held-out accuracy.
func run(path, dev string, epochs int, seed uint64) (float64, error) {
	for _, b := range torch.Backends() {
		state := "available"
		if !b.Available {
			state = "not available"
		}
		fmt.Printf("backend %-4s %s: %s\n", b.Device, state, b.Detail)
	}
	if path == "" {
		path = defaultData()
	}
	images, labels, err := loadDigits(path)
	if err != nil {
		return 0, err
	}
	n := len(labels)
	rng := rand.New(rand.NewPCG(seed, 1))
	order := rng.Perm(n)
	nTest := n / 5
	testX, testY := subset(images, labels, order[:nTest])
	fmt.Printf("digits: %d images of 8x8 pixels, %d for training, %d held out\n", n, n-nTest, nTest)

	torch.ManualSeed(seed)
	model := nn.NewSequential(nn.NewLinear(64, 128, torch.WithDevice(dev)), nn.ReLU(), nn.NewLinear(128, 10, torch.WithDevice(dev)))
	opt, err := optim.NewAdam(nn.Parameters(model), optim.AdamConfig{LR: 3e-3})
	if err != nil {
		return 0, err
	}
	fmt.Printf("model: Linear(64, 128) ReLU Linear(128, 10) on %s, Adam lr 3e-3, batch 64, %d epochs\n", dev, epochs)

	start := time.Now()
	const batch = 64
	nTrain := n - nTest
	for epoch := 1; epoch <= epochs; epoch++ {
		// Shuffle on the host and move the epoch's data to the device once;
		// batches are then views of it.
		x, y := subset(images, labels, shuffled(rng, order[nTest:]))
		if x, err = x.To(dev); err != nil {
			return 0, err
		}
		if y, err = y.To(dev); err != nil {
			return 0, err
		}
		var total float64
		for at := 0; at < nTrain; at += batch {
			n := min(batch, nTrain-at)
			opt.ZeroGrad()
			loss := nn.CrossEntropy(model.Forward(x.Narrow(0, at, n)), y.Narrow(0, at, n))
			if err := loss.Backward(); err != nil {
				return 0, err
			}
			if err := opt.Step(); err != nil {
				return 0, err
			}
			v, err := loss.Item()
			if err != nil {
				return 0, err
			}
			total += v * float64(n)
		}
		if epoch == 1 || epoch%5 == 0 || epoch == epochs {
			acc, err := accuracy(model, x, y)
			if err != nil {
				return 0, err
			}
			fmt.Printf("epoch %3d  loss %.4f  train accuracy %.1f%%\n", epoch, total/float64(nTrain), 100*acc)
		}
		x.Release()
		y.Release()
	}
	elapsed := time.Since(start)
	if testX, err = testX.To(dev); err != nil {
		return 0, err
	}
	if testY, err = testY.To(dev); err != nil {
		return 0, err
	}
	acc, err := accuracy(model, testX, testY)
	if err != nil {
		return 0, err
	}
	steps := epochs * ((nTrain + batch - 1) / batch)
	fmt.Printf("held-out accuracy %.1f%% (%d images); training took %v (%d steps, %.0f us per step, %d cores)\n",
		100*acc, nTest, elapsed.Round(time.Millisecond), steps, float64(elapsed.Microseconds())/float64(steps), runtime.GOMAXPROCS(0))
	return acc, nil
}

// accuracy is the share of images whose largest logit is their label.
func accuracy(model nn.Module, x, y *torch.Tensor) (float64, error) {
	nn.Eval(model)
	defer model.Train(true)
	var right float64
	var err error
	torch.NoGrad(func() {
		pred := model.Forward(x).ArgmaxDim(1, false)
		right, err = pred.Eq(y).ToDType(torch.Float32).Sum().Item()
	})
	return right / float64(y.Shape()[0]), err
}

// shuffled returns idx in a random order.
func shuffled(rng *rand.Rand, idx []int) []int {
	out := append([]int(nil), idx...)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// subset returns the images and labels at rows idx as tensors.
func subset(images []float32, labels []int64, idx []int) (*torch.Tensor, *torch.Tensor) {
	x := make([]float32, 0, len(idx)*64)
	y := make([]int64, 0, len(idx))
	for _, i := range idx {
		x = append(x, images[i*64:(i+1)*64]...)
		y = append(y, labels[i])
	}
	return torch.FromSlice(x, torch.WithShape(len(idx), 64)), torch.FromSlice(y)
}

// loadDigits reads the gzipped CSV: 64 pixel values (0 to 16) and a label
// per line. Pixels are scaled to [0, 1].
func loadDigits(path string) ([]float32, []int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	r := csv.NewReader(z)
	r.FieldsPerRecord = 65
	var images []float32
	var labels []int64
	for line := 1; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		for _, s := range rec[:64] {
			v, err := strconv.ParseFloat(s, 32)
			if err != nil || v < 0 || v > 16 {
				return nil, nil, fmt.Errorf("%s:%d: bad pixel %q", path, line, s)
			}
			images = append(images, float32(v)/16)
		}
		l, err := strconv.ParseInt(rec[64], 10, 64)
		if err != nil || l < 0 || l > 9 {
			return nil, nil, fmt.Errorf("%s:%d: bad label %q", path, line, rec[64])
		}
		labels = append(labels, l)
	}
	if len(labels) == 0 {
		return nil, nil, fmt.Errorf("%s: no images", path)
	}
	return images, labels, nil
}

// defaultData finds data/digits.csv.gz in the working directory or above.
func defaultData() string {
	dir, _ := os.Getwd()
	for {
		p := filepath.Join(dir, "data", "digits.csv.gz")
		if _, err := os.Stat(p); err == nil {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			return filepath.Join("data", "digits.csv.gz")
		}
		dir = up
	}
}
