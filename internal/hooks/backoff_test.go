package hooks

import (
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// TestRetryTimeCountsFromTheRunsStart: failurePolicy: retry retries until the hook's
// retryFor (else the agent's For) from the run's start in the ledger — an agent restarted
// mid-run does not start the count again — and each wait is jittered within its second
// half.
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
	for range 1000 {
		if w := b.jitter(8 * time.Second); w < 4*time.Second || w > 8*time.Second {
			t.Fatalf("a jittered 8s wait is %s", w)
		}
	}
}
