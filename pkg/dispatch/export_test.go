package dispatch

import "github.com/mindtorch/mindtorch/pkg/backends/kernel"

// SwapDecomposition installs f as op's decomposition for a test and
// returns the function that puts the previous one back.
func SwapDecomposition(op kernel.OpID, f kernel.KernelFunc) (restore func()) {
	old := decompositions[op]
	decompositions[op] = f
	return func() { decompositions[op] = old }
}

// ReaderEntries counts the registry's entries (readers.go): one per
// captured call that has not run or is lazy, and per memory it reads.
func ReaderEntries() int {
	regMu.Lock()
	defer regMu.Unlock()
	n := 0
	for _, set := range readers {
		n += set.len()
	}
	return n
}
