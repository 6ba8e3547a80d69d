// Command demo trains a small neural network on the UCI handwritten digits
// (1797 images of 8x8 pixels, 10 classes) with MindTorch: an MLP 64-128-10
// written with nn, cross-entropy, Adam, mini batches of 64. It prints what
// the backends found, the loss and accuracy as training goes, and the
// accuracy on the 20% of the images it never trained on.
//
// The data set, digits.csv.gz next to this file, is embedded in the binary,
// so the demo runs from any directory; -data reads another file of the same
// layout (64 pixels from 0 to 16 and a label from 0 to 9 per line, gzipped).
//
//	go run ./cmd/demo                  # on the CPU
//	go run ./cmd/demo -device npu      # on an Ascend NPU (CANN installed)
//	go run ./cmd/demo -epochs 50 -seed 7
//
// A bad command line exits with status 2, as the flag package does; a
// device that is not there (an NPU without CANN) or a failed run, with 1.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mindtorch/mindtorch/pkg/backends/npu"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// digits is the UCI digits data set (the test set of the UCI "Optical
// Recognition of Handwritten Digits", as in scikit-learn), gzipped CSV.
//
//go:embed digits.csv.gz
var digits []byte

// config is what the command line asks for.
type config struct {
	data   string // a gzipped CSV to read; "" for the embedded data set
	device string // where to train, as device.Device.String prints it
	epochs int
	seed   uint64
}

// Exit statuses.
const (
	exitOK    = 0
	exitFail  = 1 // the run failed, or the device is not there
	exitUsage = 2 // a bad command line, as the flag package
)

func main() {
	os.Exit(demo(os.Args[1:], os.Stdout, os.Stderr))
}

// demo is the command: it reads args, trains, and returns the exit status.
// Every error is one line on stderr.
func demo(args []string, stdout, stderr io.Writer) int {
	cfg, err := parseArgs(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.Is(err, errReported):
		return exitUsage
	case err != nil:
		fmt.Fprintln(stderr, "demo:", err)
		return exitUsage
	}
	if err := checkDevice(cfg.device); err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return exitFail
	}
	if _, err := run(cfg, stdout); err != nil {
		fmt.Fprintln(stderr, "demo:", err)
		return exitFail
	}
	return exitOK
}

// errReported is a command-line error the flag package has printed already.
var errReported = errors.New("bad command line")

// parseArgs reads the command line. The values are checked here, so that a
// bad one is reported at once, in one line, before anything runs.
func parseArgs(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "a gzipped digits CSV to read instead of the embedded UCI digits")
	dev := fs.String("device", "cpu", "where to train: cpu, or npu[:N] where available")
	epochs := fs.Int("epochs", 30, "passes over the training images (at least 1)")
	seed := fs.Uint64("seed", 0, "seed of the weights and of the split and batch order")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return config{}, err
		}
		return config{}, errReported
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q: the demo takes flags only (demo -h lists them)", fs.Arg(0))
	}
	if *epochs < 1 {
		return config{}, fmt.Errorf("-epochs must be at least 1, got %d", *epochs)
	}
	d, err := device.Parse(*dev)
	if err != nil {
		// device.Parse names the package and the device ("device: unknown
		// device \"foo\": ..."); say it once, after the flag.
		return config{}, fmt.Errorf("-device: %s", strings.TrimPrefix(err.Error(), "device: "))
	}
	if d.Type == device.Meta {
		return config{}, errors.New("-device meta: meta tensors have shapes but no data, so the demo cannot train there; use cpu or npu[:N]")
	}
	return config{data: *data, device: d.String(), epochs: *epochs, seed: *seed}, nil
}

// checkDevice reports a device that this machine does not have: an NPU
// without CANN (and why), or an NPU index beyond the cards found.
func checkDevice(name string) error {
	d, err := device.Parse(name)
	if err != nil || d.Type != device.NPU {
		return err
	}
	if !npu.IsAvailable() {
		return fmt.Errorf("-device %s: the NPU is unavailable: %s", name, npu.UnavailableReason())
	}
	if n := npu.DeviceCount(); d.Index >= n {
		return fmt.Errorf("-device %s: there is no NPU %d (%d found, numbered from 0)", name, d.Index, n)
	}
	return nil
}

// run trains as cfg says, prints its progress to out and returns the
// held-out accuracy.
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
	rng := rand.New(rand.NewPCG(seed, 1))
	order := rng.Perm(n)
	nTest := n / 5
	testX, testY := subset(images, labels, order[:nTest])
	fmt.Fprintf(out, "digits: %d images of 8x8 pixels, %d for training, %d held out\n", n, n-nTest, nTest)

	torch.ManualSeed(seed)
	model := nn.NewSequential(nn.NewLinear(64, 128, torch.WithDevice(dev)), nn.ReLU(), nn.NewLinear(128, 10, torch.WithDevice(dev)))
	opt, err := optim.NewAdam(nn.Parameters(model), optim.LR(3e-3))
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(out, "model: Linear(64, 128) ReLU Linear(128, 10) on %s, Adam lr 3e-3, batch 64, %d epochs\n", dev, epochs)

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
			fmt.Fprintf(out, "epoch %3d  loss %.4f  train accuracy %.1f%%\n", epoch, total/float64(nTrain), 100*acc)
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
	fmt.Fprintf(out, "held-out accuracy %.1f%% (%d images); training took %v (%d steps, %.0f us per step, %d cores)\n",
		100*acc, nTest, elapsed.Round(time.Millisecond), steps, float64(elapsed.Microseconds())/float64(steps), runtime.GOMAXPROCS(0))
	return acc, nil
}

// accuracy is the share of images whose largest logit is their label.
func accuracy(model nn.Layer, x, y *torch.Tensor) (float64, error) {
	if err := nn.Eval(model); err != nil {
		return 0, err
	}
	defer func() { _ = nn.Train(model, true) }() // cannot fail: Eval walked the model
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

// readData reads the digits from path, or from the embedded copy when path
// is "".
func readData(path string) ([]float32, []int64, error) {
	if path == "" {
		return loadDigits("digits.csv.gz (embedded)", bytes.NewReader(digits))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return loadDigits(path, bufio.NewReader(f))
}

// loadDigits reads a gzipped CSV, named name in errors: 64 pixel values (0
// to 16) and a label per line. Pixels are scaled to [0, 1].
func loadDigits(name string, r io.Reader) ([]float32, []int64, error) {
	z, err := gzip.NewReader(r)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	cr := csv.NewReader(z)
	cr.FieldsPerRecord = 65
	var images []float32
	var labels []int64
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		for _, s := range rec[:64] {
			v, err := strconv.ParseFloat(s, 32)
			if err != nil || v < 0 || v > 16 {
				return nil, nil, fmt.Errorf("%s:%d: bad pixel %q", name, line, s)
			}
			images = append(images, float32(v)/16)
		}
		l, err := strconv.ParseInt(rec[64], 10, 64)
		if err != nil || l < 0 || l > 9 {
			return nil, nil, fmt.Errorf("%s:%d: bad label %q", name, line, rec[64])
		}
		labels = append(labels, l)
	}
	if len(labels) == 0 {
		return nil, nil, fmt.Errorf("%s: no images", name)
	}
	return images, labels, nil
}
