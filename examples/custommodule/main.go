// Command custommodule defines a module of its own, trains it, saves it as
// safetensors and loads it back into a fresh copy.
//
// Ring classifies points of the plane as inside or outside the unit circle.
// It is a struct embedding nn.Base whose exported fields are its state: two
// nn.Linear submodules, a learnt parameter and a buffer. It has no
// NamedParameters, StateDict or Train method of its own: package nn finds
// them all in the fields, so nn.Parameters, nn.StateDict and
// nn.LoadStateDict work on it as on the modules nn ships.
//
//	go run ./examples/custommodule
//	go run ./examples/custommodule -steps 100 -out ./ring
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/optim"
	"github.com/mindtorch/mindtorch/pkg/safetensors"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// Ring is a two-layer network with a learnt temperature on its logits and
// the input scale as a buffer: saved with the weights, never trained.
type Ring struct {
	nn.Base
	Hidden      *nn.Linear    // state dict names "hidden.weight", "hidden.bias"
	Out         *nn.Linear    // "out.weight", "out.bias"
	Temperature *torch.Tensor // a parameter: "temperature"
	InputScale  *torch.Tensor `nn:"buffer"` // a buffer: "input_scale"
	Width       int           // not state
}

// NewRing makes a Ring with width hidden units, from the default generator.
func NewRing(width int) *Ring {
	return &Ring{
		Hidden:      nn.NewLinear(2, width),
		Out:         nn.NewLinear(width, 2),
		Temperature: nn.Parameter(torch.Ones([]int{1})),
		InputScale:  torch.Full([]int{1}, 0.5),
		Width:       width,
	}
}

// Forward returns the logits of "outside" and "inside" for points x [n, 2].
func (r *Ring) Forward(x *torch.Tensor) *torch.Tensor {
	h := r.Hidden.Forward(x.Mul(r.InputScale)).Tanh()
	return r.Out.Forward(h).Mul(r.Temperature)
}

// String prints the module as PyTorch prints modules.
func (r *Ring) String() string { return nn.Repr(r) }

// result is what run measured.
type result struct {
	Names    []string // the parameters package nn found, in order
	Saved    int      // the tensors in the checkpoint: parameters and buffer
	Accuracy float64  // of the trained model on fresh points
	Reloaded float64  // of the model loaded from the checkpoint
	Same     bool     // whether both models give the very same logits
}

func main() {
	steps := flag.Int("steps", 300, "full-batch training steps (at least 1)")
	out := flag.String("out", "", "directory to keep ring.safetensors in (default: a temporary one, removed at the end)")
	flag.Parse()
	if err := saveAndReload(*out, *steps); err != nil {
		fmt.Fprintln(os.Stderr, "custommodule:", err)
		os.Exit(1)
	}
}

// saveAndReload runs the example with its checkpoint in dir, made if need
// be, or in a temporary directory removed afterwards when dir is "".
func saveAndReload(dir string, steps int) error {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		_, err := run(dir, steps, os.Stdout)
		return err
	}
	tmp, err := os.MkdirTemp("", "custommodule-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if _, err := run(tmp, steps, os.Stdout); err != nil {
		return err
	}
	fmt.Println("removing", tmp, "(-out DIR keeps the checkpoint)")
	return nil
}

// points returns n points drawn uniformly in [-2, 2]^2 from g and their
// labels: 1 inside the unit circle, 0 outside.
func points(n int, g *torch.Generator) (*torch.Tensor, *torch.Tensor) {
	x := torch.Rand([]int{n, 2}, torch.WithGenerator(g)).MulScalar(4).AddScalar(-2)
	y := x.Mul(x).Sum(1).LtScalar(1).ToDType(torch.Int64)
	return x, y
}

// run trains a Ring for steps steps on the whole training set, saves it in dir, loads it into a
// fresh Ring, and reports both models' accuracy on points they never saw.
func run(dir string, steps int, out io.Writer) (result, error) {
	if steps < 1 {
		return result{}, fmt.Errorf("steps must be at least 1, got %d", steps)
	}
	g := torch.NewGenerator(0)
	x, y := points(1000, g)
	testX, testY := points(500, g)

	torch.ManualSeed(0)
	model := NewRing(16)
	fmt.Fprintln(out, model)
	named, err := nn.NamedParameters(model)
	if err != nil {
		return result{}, err
	}
	var res result
	for _, p := range named {
		res.Names = append(res.Names, p.Name)
		fmt.Fprintf(out, "parameter %-13s %v\n", p.Name, p.Tensor.Shape())
	}

	opt, err := optim.NewAdam(nn.Parameters(model), optim.LR(0.05))
	if err != nil {
		return result{}, err
	}
	for step := 1; step <= steps; step++ {
		opt.ZeroGrad()
		loss := nn.CrossEntropy(model.Forward(x), y)
		if err := loss.Backward(); err != nil {
			return result{}, fmt.Errorf("step %d: %w", step, err)
		}
		if err := opt.Step(); err != nil {
			return result{}, fmt.Errorf("step %d: %w", step, err)
		}
		if step == 1 || step%100 == 0 || step == steps {
			v, err := loss.Item()
			if err != nil {
				return result{}, fmt.Errorf("step %d: %w", step, err)
			}
			fmt.Fprintf(out, "step %4d  loss %.4f\n", step, v)
		}
	}

	path := filepath.Join(dir, "ring.safetensors")
	if err := safetensors.Save(path, nn.StateDict(model), map[string]string{"model": "Ring(16)"}); err != nil {
		return result{}, err
	}
	sd, err := safetensors.Load(path)
	if err != nil {
		return result{}, err
	}
	fresh := NewRing(16)
	if err := nn.LoadStateDict(fresh, sd); err != nil {
		return result{}, fmt.Errorf("loading %s: %w", path, err)
	}
	res.Saved = len(sd)
	fmt.Fprintf(out, "saved %d tensors to %s and loaded them into a fresh Ring\n", len(sd), path)

	var logits, reloaded *torch.Tensor
	torch.NoGrad(func() {
		logits, reloaded = model.Forward(testX), fresh.Forward(testX)
	})
	if res.Same, err = torch.EqualErr(logits, reloaded); err != nil {
		return result{}, err
	}
	if res.Accuracy, err = accuracy(logits, testY); err != nil {
		return result{}, err
	}
	if res.Reloaded, err = accuracy(reloaded, testY); err != nil {
		return result{}, err
	}
	fmt.Fprintf(out, "accuracy on 500 new points: trained %.1f%%, reloaded %.1f%%\n", 100*res.Accuracy, 100*res.Reloaded)
	if !res.Same {
		return res, fmt.Errorf("the model loaded from %s gives other logits than the trained one", path)
	}
	return res, nil
}

// accuracy is the share of rows of logits whose largest value is at their
// label.
func accuracy(logits, y *torch.Tensor) (float64, error) {
	right, err := logits.ArgmaxDim(1, false).Eq(y).ToDType(torch.Float32).Sum().Item()
	return right / float64(y.Shape()[0]), err
}
