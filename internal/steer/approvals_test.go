package steer

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"
)

// TestApproveAndRejectRecordTheApprover: the CLI's identity goes into the approver keys; an
// answer without one removes stale approver keys; a pending answer is never overwritten.
func TestApproveAndRejectRecordTheApprover(t *testing.T) {
	ctx := context.Background()
	r, kc := steered(t, map[string]string{"status": "the agent's"})
	r.Approver = &Identity{User: "alice", Groups: []string{"sre", "system:authenticated"}}
	if err := r.Approve(ctx, "prod"); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"status": "the agent's", "generation": "4", "by": "alice", "reason": "error rate up",
		"approve": "prod", "approver": "alice", "approver-groups": "sre,system:authenticated"}
	if got := stateData(t, kc); !maps.Equal(got, want) {
		t.Fatalf("data %v, want %v", got, want)
	}
	r.Approver = &Identity{User: "bob"}
	var refused *Refused
	if err := r.Approve(ctx, "prod"); !errors.As(err, &refused) || !strings.Contains(err.Error(), `approve by "alice" is not recorded yet`) {
		t.Fatalf("a second approval over a pending one: %v", err)
	}
	if err := r.Reject(ctx, "prod"); !errors.As(err, &refused) {
		t.Fatalf("a rejection over a pending approval: %v", err)
	}
	r, kc = steered(t, map[string]string{"approver-groups": "stale"})
	r.Approver = &Identity{User: "bob"}
	if err := r.Reject(ctx, "staging"); err != nil {
		t.Fatal(err)
	}
	if d := stateData(t, kc); d["reject"] != "staging" || d["approver"] != "bob" || d["reason"] != "error rate up" {
		t.Fatalf("reject: %v", d)
	} else if _, stale := d["approver-groups"]; stale {
		t.Fatalf("stale approver-groups kept: %v", d)
	}
}
