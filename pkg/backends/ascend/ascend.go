// Package ascend is the earlier name of package npu, kept so that code
// written against either name works: every name here is the npu one.
package ascend

import "github.com/mindtorch/mindtorch/pkg/backends/npu"

// The NPU backend's functions under their earlier package name.
var (
	IsAvailable          = npu.IsAvailable
	UnavailableReason    = npu.UnavailableReason
	DeviceCount          = npu.DeviceCount
	ACLNNAvailable       = npu.ACLNNAvailable
	SymbolsOK            = npu.SymbolsOK
	Info                 = npu.Info
	Synchronize          = npu.Synchronize
	MemGetInfo           = npu.MemGetInfo
	Stats                = npu.Stats
	ResetPeakMemoryStats = npu.ResetPeakMemoryStats
	EmptyCache           = npu.EmptyCache
	NewStream            = npu.NewStream
	DefaultStream        = npu.DefaultStream
	CurrentStream        = npu.CurrentStream
	WithStream           = npu.WithStream
	NewEvent             = npu.NewEvent
	SetDevice            = npu.SetDevice
	CurrentDevice        = npu.CurrentDevice
	UseDevice            = npu.UseDevice
)

// The NPU backend's types under their earlier package name.
type (
	MemoryStats = npu.MemoryStats
	Stream      = npu.Stream
	Event       = npu.Event
)
