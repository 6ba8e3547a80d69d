package autograd

import (
	"sync"
	"testing"
)

func TestGradModeIsPerGoroutine(t *testing.T) {
	inside := make(chan struct{})
	done := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		NoGrad(func() {
			if IsGradEnabled() {
				t.Error("recording is on inside NoGrad")
			}
			close(inside)
			<-done
		})
	})
	<-inside
	if !IsGradEnabled() {
		t.Error("another goroutine's NoGrad turned recording off here")
	}
	close(done)
}

func TestGradModeNests(t *testing.T) {
	NoGrad(func() {
		EnableGrad(func() {
			if !IsGradEnabled() {
				t.Error("EnableGrad inside NoGrad: recording is off")
			}
			NoGrad(func() {
				if IsGradEnabled() {
					t.Error("NoGrad inside EnableGrad: recording is on")
				}
			})
			if !IsGradEnabled() {
				t.Error("after the inner NoGrad: recording is off")
			}
		})
		if IsGradEnabled() {
			t.Error("after EnableGrad: recording is on inside NoGrad")
		}
	})
	if !IsGradEnabled() {
		t.Error("after NoGrad: recording is off")
	}
	NoGrad(func() {
		ch := make(chan bool)
		go func() { ch <- IsGradEnabled() }()
		if !<-ch {
			t.Error("a goroutine started inside NoGrad has recording off")
		}
	})
}

func TestSetGradEnabled(t *testing.T) {
	SetGradEnabled(false)
	if IsGradEnabled() {
		t.Error("SetGradEnabled(false): still on")
	}
	EnableGrad(func() {
		if !IsGradEnabled() {
			t.Error("EnableGrad after SetGradEnabled(false): off")
		}
	})
	if IsGradEnabled() {
		t.Error("EnableGrad did not restore the off state")
	}
	SetGradEnabled(true)
	if !IsGradEnabled() {
		t.Error("SetGradEnabled(true): recording is off")
	}
}

func TestNoGradRestoresOnPanic(t *testing.T) {
	func() {
		defer func() { _ = recover() }()
		NoGrad(func() { panic("boom") })
	}()
	if !IsGradEnabled() {
		t.Error("a panicking NoGrad left recording off")
	}
}

func BenchmarkIsGradEnabled(b *testing.B) {
	b.Run("nobody-off", func(b *testing.B) {
		for b.Loop() {
			IsGradEnabled()
		}
	})
	b.Run("another-goroutine-off", func(b *testing.B) {
		stop := make(chan struct{})
		started := make(chan struct{})
		go NoGrad(func() { close(started); <-stop })
		<-started
		for b.Loop() {
			IsGradEnabled()
		}
		close(stop)
	})
}
