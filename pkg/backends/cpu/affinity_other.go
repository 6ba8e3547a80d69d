//go:build !linux

package cpu

// allowedCPUs is unknown off Linux: workers are not pinned.
func allowedCPUs() []int { return nil }

func pinTo(int) {}
