//go:build !race

package torch_test

// raceEnabled reports whether the race detector is on (see
// race_enabled_test.go).
const raceEnabled = false
