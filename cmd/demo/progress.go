package main

import (
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress is an epoch's progress bar; a zero progress shows nothing.
type progress struct {
	bar *progressbar.ProgressBar
}

// newBar starts a bar of steps batches on out, named desc. It shows only
// when out is a terminal and quiet is false: piped or logged output stays
// free of the bar's redrawing.
func newBar(out io.Writer, quiet bool, steps int, desc string) progress {
	if quiet || !isTerminal(out) {
		return progress{}
	}
	return progress{bar: progressbar.NewOptions(steps,
		progressbar.OptionSetWriter(out),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionThrottle(50*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)}
}

// add counts one batch done.
func (p progress) add() {
	if p.bar != nil {
		_ = p.bar.Add(1) // a failed redraw of the bar is no reason to stop training
	}
}

// done clears the bar, so that the epoch's line takes its place.
func (p progress) done() {
	if p.bar != nil {
		_ = p.bar.Finish()
		_ = p.bar.Clear()
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
