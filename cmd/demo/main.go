// Command demo trains a small neural network on the UCI handwritten digits
// (1797 images of 8x8 pixels, 10 classes) with MindTorch: an MLP 64-128-10
// written with nn, cross-entropy, Adam, shuffled mini batches of 64 from a
// data.Loader. It prints what the backends found, a progress bar, the loss
// and accuracy of each epoch, and the accuracy on the 20% of the images it
// never trained on.
//
// It then saves the trained weights as a safetensors checkpoint, loads them
// into a fresh model, checks that this model scores the same held-out
// accuracy, and draws the loss and accuracy curves into a PNG. Both files go
// to -out, by default mindtorch-demo in the system's temporary directory;
// -out "" writes no files.
//
// The data set (internal/digits, the UCI digits) is embedded in the binary,
// so the demo runs from any directory; -data reads another file of the same
// layout (64 pixels from 0 to 16 and a label from 0 to 9 per line, gzipped).
//
//	go run ./cmd/demo                  # on the CPU
//	go run ./cmd/demo -device npu      # on an Ascend NPU (CANN installed)
//	go run ./cmd/demo -epochs 50 -seed 7 -out ./demo-out -quiet
//
// The progress bar shows only when stdout is a terminal, and not with
// -quiet. A bad command line exits with status 2, as the flag package does;
// a device that is not there (an NPU without CANN) or a failed run, with 1.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mindtorch/mindtorch/internal/digits"
	"github.com/mindtorch/mindtorch/pkg/backends/npu"
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// config is what the command line asks for.
type config struct {
	data   string // a gzipped CSV to read; "" for the embedded data set
	device string // where to train, as device.Device.String prints it
	epochs int
	seed   uint64
	out    string // the directory for the checkpoint and the plot; "" for none
	quiet  bool   // no progress bar
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
	out := fs.String("out", defaultOut(), "directory for the checkpoint and the plot of the curves (\"\" for no files)")
	quiet := fs.Bool("quiet", false, "no progress bar (there is none when stdout is not a terminal)")
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
	return config{data: *data, device: d.String(), epochs: *epochs, seed: *seed, out: *out, quiet: *quiet}, nil
}

// defaultOut is where the demo writes its files unless told: a directory of
// its own in the system's temporary directory, which each run overwrites,
// so that running the demo leaves nothing in the repository.
func defaultOut() string {
	return filepath.Join(os.TempDir(), "mindtorch-demo")
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
		return digits.Embedded()
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return digits.Load(path, bufio.NewReader(f))
}
