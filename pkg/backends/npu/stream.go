package npu

import (
	"github.com/mindtorch/mindtorch/cgo/npushim"
	"github.com/mindtorch/mindtorch/internal/goroutine"
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
	flushLaunches()
	return statusError("synchronize", npushim.StreamSynchronize(s.dev, s.h))
}

// WaitEvent makes the work queued on s after this call wait until the
// work e captured is done (without blocking the host).
func (s *Stream) WaitEvent(e *Event) error {
	flushLaunches()
	return statusError("wait_event", npushim.StreamWaitEvent(s.dev, s.h, e.h))
}

// Close waits for s, frees its workspace and destroys it (the default
// stream stays).
func (s *Stream) Close() error {
	if s.h == 0 {
		return nil
	}
	flushLaunches()
	err := statusError("destroy_stream", npushim.StreamDestroy(s.dev, s.h))
	s.h = 0
	return err
}

// A device's current stream is its default stream (handle 0) unless the
// calling goroutine is inside WithStream: the streams chosen that way
// belong to that goroutine (PyTorch's current stream is per thread).
var usedStreams goroutine.Local[*[maxDevices]uint64]

// maxDevices bounds the device indices that WithStream remembers.
const maxDevices = 16

// streamOf is the calling goroutine's current stream of device dev.
func streamOf(dev int) uint64 {
	if s, ok := usedStreams.Get(); ok && dev >= 0 && dev < maxDevices {
		return s[dev]
	}
	return 0
}

// CurrentStream is device dev's current stream in the calling goroutine.
func CurrentStream(dev int) *Stream { return &Stream{dev: dev, h: streamOf(dev)} }

// WithStream runs f with s as its device's current stream in the calling
// goroutine, then restores the previous one. Ops that f launches on the
// device go to s; other goroutines, and goroutines f starts, keep their
// own current streams, and guards in different goroutines run at the same
// time.
func WithStream(s *Stream, f func()) {
	if s == nil || s.dev < 0 || s.dev >= maxDevices {
		f()
		return
	}
	var next [maxDevices]uint64
	if prev, ok := usedStreams.Get(); ok {
		next = *prev
	}
	next[s.dev] = s.h
	usedStreams.With(&next, f)
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
	flushLaunches()
	return statusError("record", npushim.EventRecord(e.dev, e.h, s.h))
}

// Synchronize waits until the captured work is done.
func (e *Event) Synchronize() error {
	flushLaunches()
	return statusError("synchronize", npushim.EventSynchronize(e.dev, e.h))
}

// ElapsedTime is the time in milliseconds from e to end, both recorded and
// completed.
func (e *Event) ElapsedTime(end *Event) (float32, error) {
	ms, st := npushim.EventElapsed(e.dev, e.h, end.h)
	return ms, statusError("elapsed_time", st)
}

// Close waits for the event, and for the streams that wait on it to pass
// their waits (CANN requires it), then destroys it.
func (e *Event) Close() error {
	if e.h == 0 {
		return nil
	}
	err := statusError("destroy_event", npushim.EventDestroy(e.dev, e.h))
	e.h = 0
	return err
}
