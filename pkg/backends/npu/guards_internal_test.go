package npu

import (
	"sync"
	"testing"
)

// The stream and device guards belong to the goroutine inside them: two
// goroutines in WithStream at once each see their own stream, a third sees
// the default, and neither waits for the other.
func TestGuardsArePerGoroutine(t *testing.T) {
	a, b := &Stream{dev: 0, h: 41}, &Stream{dev: 0, h: 42}
	bothInside := sync.WaitGroup{}
	bothInside.Add(2)
	var wg sync.WaitGroup
	for _, s := range []*Stream{a, b} {
		wg.Go(func() {
			WithStream(s, func() {
				bothInside.Done()
				bothInside.Wait() // both guards are held at once
				if got := streamOf(0); got != s.h {
					t.Errorf("inside WithStream(%d): current stream %d", s.h, got)
				}
				WithStream(&Stream{dev: 0, h: 7}, func() {
					if streamOf(0) != 7 {
						t.Error("nested WithStream")
					}
				})
				if streamOf(0) != s.h {
					t.Error("the nested WithStream did not restore the stream")
				}
			})
		})
	}
	wg.Wait()
	if streamOf(0) != 0 {
		t.Errorf("outside every guard: current stream %d, want the default", streamOf(0))
	}

	inside, done := make(chan struct{}), make(chan struct{})
	wg.Go(func() {
		usedDevice.With(3, func() {
			if CurrentDevice() != 3 {
				t.Errorf("inside the device guard: %d", CurrentDevice())
			}
			close(inside)
			<-done
		})
	})
	<-inside
	if CurrentDevice() != int(defaultDevice.Load()) {
		t.Errorf("another goroutine's device guard is visible here: %d", CurrentDevice())
	}
	close(done)
	wg.Wait()
}
