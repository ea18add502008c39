package hooks

import (
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// TestRetryTimeCountsFromTheRunsStart: failurePolicy: retry retries until the hook's
// retryFor (else the agent's For) from the run's start in the ledger — an agent restarted
// mid-run does not start the count again — and each wait is jittered within its second
// half, doubling from Initial up to Max.
func TestRetryTimeCountsFromTheRunsStart(t *testing.T) {
	start := time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)
	b := Backoff{Initial: time.Second, Max: 30 * time.Second, For: spec.DefaultRetryFor}
	c := Call{Started: start, Hook: spec.Hook{FailurePolicy: spec.FailurePolicyRetry}}
	if got := b.deadline(c); !got.Equal(start.Add(10 * time.Minute)) {
		t.Fatalf("default deadline %s", got)
	}
	c.Hook.RetryFor = time.Hour
	if got := b.deadline(c); !got.Equal(start.Add(time.Hour)) {
		t.Fatalf("the hook's retryFor: %s", got)
	}
	var low, high int // fourth waits (8 s) in the lower and the upper half of their range
	for range 1000 {
		waits := b.steps()
		for i, d := range []time.Duration{1, 2, 4, 8, 16, 30, 30, 30} {
			d *= time.Second
			w := waits.Step()
			if w < d/2 || w > d {
				t.Fatalf("wait %d is %s, want between %s and %s", i+1, w, d/2, d)
			}
			if i == 3 && w < 6*time.Second {
				low++
			} else if i == 3 {
				high++
			}
		}
	}
	if low < 300 || high < 300 {
		t.Fatalf("the waits are not spread over their range: %d low, %d high of 1000", low, high)
	}
}
