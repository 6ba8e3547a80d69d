package npu

import (
	"sync"

	"github.com/mindtorch/mindtorch/cgo/npushim"
)

// Stream is a queue of work on one NPU: work on one stream runs in order,
// work on different streams may overlap. Each device has a default stream
// (handle 0); ops go to the device's current stream.
type Stream struct {
	dev int
	h   uint64
}

// NewStream makes a stream on device dev. Close it when done.
func NewStream(dev int) (*Stream, error) {
	if err := ready(dev); err != nil {
		return nil, err
	}
	h, st := npushim.StreamCreate(dev)
	if st != nil {
		return nil, statusError("new_stream", st)
	}
	return &Stream{dev: dev, h: h}, nil
}

// DefaultStream is device dev's default stream.
func DefaultStream(dev int) *Stream { return &Stream{dev: dev} }

// Device is the stream's device index.
func (s *Stream) Device() int { return s.dev }

// Synchronize waits for the work queued on s.
func (s *Stream) Synchronize() error {
	return statusError("synchronize", npushim.StreamSynchronize(s.dev, s.h))
}

// WaitEvent makes the work queued on s after this call wait until the
// work e captured is done (without blocking the host).
func (s *Stream) WaitEvent(e *Event) error {
	return statusError("wait_event", npushim.StreamWaitEvent(s.dev, s.h, e.h))
}

// Close waits for s and destroys it (the default stream stays).
func (s *Stream) Close() error {
	if s.h == 0 {
		return nil
	}
	err := statusError("destroy_stream", npushim.StreamDestroy(s.dev, s.h))
	s.h = 0
	return err
}

// current holds each device's current stream. It is process-wide: Go has
// no thread-local state, so WithStream serialises its callers per device.
var current struct {
	mu      sync.Mutex
	streams [16]uint64
	with    [16]sync.Mutex
}

// streamOf is the current stream of device dev.
func streamOf(dev int) uint64 {
	current.mu.Lock()
	defer current.mu.Unlock()
	return current.streams[dev]
}

// CurrentStream is device dev's current stream.
func CurrentStream(dev int) *Stream { return &Stream{dev: dev, h: streamOf(dev)} }

// WithStream runs f with s as its device's current stream, then restores
// the previous one. The current stream is process-wide: ops that other
// goroutines launch on the device meanwhile go to s too, and concurrent
// WithStream calls on one device run one after the other.
func WithStream(s *Stream, f func()) {
	current.with[s.dev].Lock()
	defer current.with[s.dev].Unlock()
	current.mu.Lock()
	prev := current.streams[s.dev]
	current.streams[s.dev] = s.h
	current.mu.Unlock()
	defer func() {
		current.mu.Lock()
		current.streams[s.dev] = prev
		current.mu.Unlock()
	}()
	f()
}

// Event marks a point in a stream's work, to wait for it or time it.
type Event struct {
	dev int
	h   uint64
}

// NewEvent makes an event on device dev. Close it when done.
func NewEvent(dev int) (*Event, error) {
	if err := ready(dev); err != nil {
		return nil, err
	}
	h, st := npushim.EventCreate(dev)
	if st != nil {
		return nil, statusError("new_event", st)
	}
	return &Event{dev: dev, h: h}, nil
}

// Record captures the work queued so far on s (nil: the current stream).
func (e *Event) Record(s *Stream) error {
	if s == nil {
		s = CurrentStream(e.dev)
	}
	return statusError("record", npushim.EventRecord(e.dev, e.h, s.h))
}

// Synchronize waits until the captured work is done.
func (e *Event) Synchronize() error {
	return statusError("synchronize", npushim.EventSynchronize(e.dev, e.h))
}

// ElapsedTime is the time in milliseconds from e to end, both recorded and
// completed.
func (e *Event) ElapsedTime(end *Event) (float32, error) {
	ms, st := npushim.EventElapsed(e.dev, e.h, end.h)
	return ms, statusError("elapsed_time", st)
}

// Close waits for the event and destroys it.
func (e *Event) Close() error {
	if e.h == 0 {
		return nil
	}
	err := statusError("destroy_event", npushim.EventDestroy(e.dev, e.h))
	e.h = 0
	return err
}
