package torch

import (
	"github.com/mindtorch/mindtorch/pkg/device"
	"github.com/mindtorch/mindtorch/pkg/dtype"
)

// Option configures a creation call: its dtype, device, requires_grad,
// shape (for FromSlice) or random generator. A nil Option sets nothing.
type Option func(*options)

type options struct {
	dtype        DType
	hasDType     bool
	dev          Device
	err          error
	requiresGrad bool
	shape        []int
	hasShape     bool
	gen          *Generator
}

// WithDType makes the tensor of dtype d.
func WithDType(d DType) Option { return func(o *options) { o.dtype, o.hasDType = d, true } }

// WithDevice puts the tensor on a device given by name: "cpu", "meta",
// "npu", "npu:1" ("ascend" is an alias of npu).
func WithDevice(name string) Option {
	return func(o *options) {
		d, err := parseDevice(name)
		if err != nil && o.err == nil {
			o.err = err
		}
		o.dev = d
	}
}

// OnDevice puts the tensor on device d.
func OnDevice(d Device) Option { return func(o *options) { o.dev = d } }

// WithRequiresGrad records gradients for the tensor (floating dtypes only).
func WithRequiresGrad(on bool) Option { return func(o *options) { o.requiresGrad = on } }

// WithShape gives FromSlice the shape of its data (flat, row-major).
func WithShape(shape ...int) Option {
	return func(o *options) { o.shape, o.hasShape = shape, true }
}

// WithGenerator draws random numbers from g instead of the default generator.
func WithGenerator(g *Generator) Option { return func(o *options) { o.gen = g } }

func collect(opts []Option) options {
	if len(opts) == 0 { // the common case, without the allocation the options escape into
		return options{dev: device.CPUDevice}
	}
	o := options{dev: device.CPUDevice}
	for _, f := range opts {
		if f != nil {
			f(&o)
		}
	}
	return o
}

// dtypeOr is the requested dtype, or d.
func (o *options) dtypeOr(d DType) DType {
	if o.hasDType {
		return o.dtype
	}
	return d
}

func (o *options) floatDType() DType { return o.dtypeOr(dtype.Default()) }

// parseDevice parses a device name, failing with an ErrDevice error.
func parseDevice(name string) (Device, error) {
	d, err := device.Parse(name)
	if err != nil {
		return d, &Error{Op: "device", Kind: ErrDevice, Detail: err.Error()}
	}
	return d, nil
}
