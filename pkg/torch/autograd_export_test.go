package torch_test

import "github.com/mindtorch/mindtorch/pkg/autograd"

func autogradFreed() error { return autograd.ErrGraphFreed }
