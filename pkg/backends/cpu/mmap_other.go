//go:build !unix

package cpu

import "errors"

// Without mmap every allocation comes from the Go heap.
const mappingSupported = false

func mapAnonymous(int) ([]byte, error) { return nil, errors.New("mmap is not supported") }

func unmap([]byte) {}
