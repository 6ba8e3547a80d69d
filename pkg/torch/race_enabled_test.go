//go:build race

package torch_test

// raceEnabled reports whether the race detector is on: its instrumentation
// makes values escape to the heap, so allocation counts do not hold.
const raceEnabled = true
