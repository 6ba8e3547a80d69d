// Package device names the places a tensor can live: the host CPU, the
// shape-only meta device, and Huawei Ascend NPUs.
//
// A leaf package like pkg/dtype; pkg/torch re-exports its names.
package device

import (
	"fmt"
	"strconv"
	"strings"
)

// Type is the kind of a device.
type Type uint8

// The device types.
const (
	CPU  Type = iota // host memory
	Meta             // shapes and dtypes only, no data
	NPU              // an Ascend NPU ("ascend" is accepted as an alias)

	// NumTypes is the number of device types.
	NumTypes = iota
)

// String is the name PyTorch uses for the type: "cpu", "meta", "npu".
func (t Type) String() string {
	switch t {
	case CPU:
		return "cpu"
	case Meta:
		return "meta"
	case NPU:
		return "npu"
	}
	return fmt.Sprintf("device.Type(%d)", uint8(t))
}

// Device is a device type and, for NPUs, the index of the card. Index -1
// means "the current device" until a tensor is placed; tensors on an NPU always
// carry a concrete index. The zero value is the CPU.
type Device struct {
	Type  Type
	Index int
}

// Common devices.
var (
	CPUDevice  = Device{Type: CPU}
	MetaDevice = Device{Type: Meta}
)

// NPUDevice returns the device of NPU card i.
func NPUDevice(i int) Device { return Device{Type: NPU, Index: i} }

// String formats the device as PyTorch does: "cpu", "meta", "npu:0"; an NPU
// without an index prints as "npu".
func (d Device) String() string {
	if d.Type == NPU {
		if d.Index < 0 {
			return "npu"
		}
		return "npu:" + strconv.Itoa(d.Index)
	}
	return d.Type.String()
}

// Parse reads a device name: "cpu", "meta", "npu", "npu:N", and the older
// names "ascend" and "ascend:N" for NPUs. A CPU or meta device takes no index
// other than 0. As in PyTorch, names are lower case and take no spaces.
func Parse(s string) (Device, error) {
	name, idx, hasIdx := strings.Cut(s, ":")
	index := -1
	if hasIdx {
		n, err := strconv.Atoi(idx)
		if err != nil || n < 0 || idx != strconv.Itoa(n) {
			return Device{}, fmt.Errorf("device: invalid device string %q: the index must be a non-negative integer", s)
		}
		index = n
	}
	switch name { // as PyTorch: no spaces, lower case only
	case "cpu":
		if index > 0 {
			return Device{}, fmt.Errorf("device: invalid device string %q: cpu has only index 0", s)
		}
		return CPUDevice, nil
	case "meta":
		if index > 0 {
			return Device{}, fmt.Errorf("device: invalid device string %q: meta has only index 0", s)
		}
		return MetaDevice, nil
	case "npu", "ascend":
		return Device{Type: NPU, Index: index}, nil
	}
	return Device{}, fmt.Errorf("device: unknown device %q: expected cpu, meta, npu, npu:N (or ascend, ascend:N)", s)
}

// MustParse is Parse for constant device names in programs and tests; it
// panics on a malformed name, which is a bug in the calling code.
func MustParse(s string) Device {
	d, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return d
}
