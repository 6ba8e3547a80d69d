package cpu

import "testing"

func TestReschedOncePerInterval(t *testing.T) {
	var r rescheduler
	now := reschedClock()
	r.last.Store(now)
	r.resched()
	if got := r.last.Load(); got != now {
		t.Fatalf("rescheduled %d ns after the last time; want none before %v", got-now, reschedEvery)
	}
	r.last.Store(now - int64(reschedEvery))
	r.resched()
	if got := r.last.Load(); got < now {
		t.Fatalf("last = %d, want at least %d: a due reschedule did not happen", got, now)
	}
}
