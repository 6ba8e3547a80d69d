package main

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/mindtorch/mindtorch/pkg/nn"
	"github.com/mindtorch/mindtorch/pkg/safetensors"
	"github.com/mindtorch/mindtorch/pkg/torch"
)

// saveCheckpoint writes model's state dict to path as safetensors, with
// what produced it as metadata.
func saveCheckpoint(path string, model nn.Module, cfg config, acc float64) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	meta := map[string]string{
		"model":             "Linear(64, 128) ReLU Linear(128, 10)",
		"epochs":            strconv.Itoa(cfg.epochs),
		"seed":              strconv.FormatUint(cfg.seed, 10),
		"held_out_accuracy": strconv.FormatFloat(acc, 'g', -1, 64),
	}
	if err := safetensors.Save(path, nn.StateDict(model), meta); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// checkCheckpoint loads the checkpoint at path into a fresh model on dev
// and returns its held-out accuracy, which must be want: the checkpoint
// must hold the trained model exactly.
func checkCheckpoint(path, dev string, testX, testY *torch.Tensor, want float64) (float64, error) {
	sd, err := safetensors.Load(path)
	if err != nil {
		return 0, fmt.Errorf("reloading the checkpoint: %w", err)
	}
	fresh := newModel(dev)
	if err := nn.LoadStateDict(fresh, sd); err != nil {
		return 0, fmt.Errorf("reloading the checkpoint %s: %w", path, err)
	}
	got, err := accuracy(fresh, testX, testY)
	if err != nil {
		return 0, fmt.Errorf("the model reloaded from %s: %w", path, err)
	}
	if got != want {
		return 0, fmt.Errorf("the model reloaded from %s has held-out accuracy %.2f%%, the trained one %.2f%%: the checkpoint does not hold the trained weights",
			path, 100*got, 100*want)
	}
	return got, nil
}

// plotHistory draws the loss and the accuracies per epoch side by side into
// a PNG at path.
func plotHistory(path string, h history) error {
	lossPlot := plot.New()
	lossPlot.Title.Text = "Training loss"
	lossPlot.X.Label.Text = "epoch"
	lossPlot.Y.Label.Text = "cross-entropy"
	lossPlot.Y.Min = 0
	lossPlot.Add(plotter.NewGrid())
	if err := addLine(lossPlot, "", h.loss, 1, color.RGBA{R: 200, G: 50, B: 50, A: 255}); err != nil {
		return fmt.Errorf("plot: %w", err)
	}

	accPlot := plot.New()
	accPlot.Title.Text = "Accuracy"
	accPlot.X.Label.Text = "epoch"
	accPlot.Y.Label.Text = "% right"
	accPlot.Add(plotter.NewGrid())
	if err := addLine(accPlot, "training (during the epoch)", h.trainAcc, 100, color.RGBA{R: 50, G: 90, B: 200, A: 255}); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	if err := addLine(accPlot, "held out", h.testAcc, 100, color.RGBA{R: 30, G: 150, B: 60, A: 255}); err != nil {
		return fmt.Errorf("plot: %w", err)
	}

	img := vgimg.New(10*vg.Inch, 4*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadX: vg.Inch / 4, PadTop: vg.Inch / 8, PadBottom: vg.Inch / 8, PadLeft: vg.Inch / 8, PadRight: vg.Inch / 8}
	plots := [][]*plot.Plot{{lossPlot, accPlot}}
	canvases := plot.Align(plots, tiles, dc)
	for i, p := range plots[0] {
		p.Draw(canvases[0][i])
	}

	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return fmt.Errorf("plot: writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("plot: writing %s: %w", path, err)
	}
	return nil
}

// addLine adds ys, scaled by scale, against the epochs 1, 2, ... to p as a
// line with a point per epoch, named name in the legend (none for "").
func addLine(p *plot.Plot, name string, ys []float64, scale float64, c color.Color) error {
	xys := make(plotter.XYs, len(ys))
	for i, y := range ys {
		xys[i] = plotter.XY{X: float64(i + 1), Y: scale * y}
	}
	line, points, err := plotter.NewLinePoints(xys) // points, so that one epoch shows
	if err != nil {
		return err
	}
	line.Color = c
	line.Width = vg.Points(1.5)
	points.Color = c
	points.Shape = draw.CircleGlyph{}
	points.Radius = vg.Points(2)
	p.Add(line, points)
	if name != "" {
		p.Legend.Add(name, line, points)
	}
	return nil
}
