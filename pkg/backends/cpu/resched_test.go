package cpu

import "testing"

func TestReschedOncePerInterval(t *testing.T) {
	defer lastResched.Store(lastResched.Load())
	now := reschedClock()
	lastResched.Store(now)
	resched()
	if got := lastResched.Load(); got != now {
		t.Fatalf("rescheduled %d ns after the last time; want none before %v", got-now, reschedEvery)
	}
	lastResched.Store(now - int64(reschedEvery))
	resched()
	if got := lastResched.Load(); got < now {
		t.Fatalf("last = %d, want at least %d: a due reschedule did not happen", got, now)
	}
}
