package rollout

import (
	"testing"
	"time"
)

func TestRequeueAtIsTheEarliestRequeue(t *testing.T) {
	t0 := time.Date(2026, 12, 8, 1, 0, 0, 0, time.UTC)
	acts := []Action{{Kind: ActRequeue, At: t0.Add(time.Minute)}, {Kind: ActEvent, At: t0}, {Kind: ActRequeue, At: t0.Add(time.Second)}}
	if got := RequeueAt(acts); !got.Equal(t0.Add(time.Second)) {
		t.Fatalf("RequeueAt = %v, want the earliest requeue", got)
	}
	if got := RequeueAt(acts[1:2]); !got.IsZero() {
		t.Fatalf("RequeueAt without a requeue = %v, want zero", got)
	}
}
