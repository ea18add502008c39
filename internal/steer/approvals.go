package steer

import (
	"context"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/control"
)

// Identity is who approves or rejects, as the API server authenticated them (the CLI asks
// it with a SelfSubjectReview).
type Identity struct {
	User   string
	Groups []string
}

// Approve records an approval of phase's gate by the rollout's Approver.
func (r Rollout) Approve(ctx context.Context, phase string) error {
	return r.edit(ctx, r.answer(contract.ApproveKey, phase))
}

// Reject refuses phase's approval gate (the phase fails with its onFailure), by the
// rollout's Approver, for its Reason.
func (r Rollout) Reject(ctx context.Context, phase string) error {
	return r.edit(ctx, r.answer(contract.RejectKey, phase))
}

// answer writes an approve or reject with the approver's identity. One answer at a time: a
// pending one (not yet recorded by the agent, or refused by it) would otherwise be
// overwritten, or credited to the next approver.
func (r Rollout) answer(key, phase string) change {
	return func(data map[string]string) map[string]*string {
		e := map[string]*string{key: &phase, contract.ApproverKey: nil, contract.ApproverGroupsKey: nil}
		if r.Approver != nil {
			e[contract.ApproverKey] = &r.Approver.User
			if len(r.Approver.Groups) > 0 {
				e[contract.ApproverGroupsKey] = new(strings.Join(r.Approver.Groups, ","))
			}
		}
		return e
	}
}

// pendingAnswer refuses an approve or reject while another one waits in data.
func pendingAnswer(data map[string]string) *Refused {
	for _, k := range []string{contract.ApproveKey, contract.RejectKey} {
		if v, ok := data[k]; ok {
			who := data[contract.ApproverKey]
			if who == "" {
				who = data[contract.ByKey]
			}
			return &Refused{Problem: control.Problemf(k, v,
				"%s by %q is not recorded yet (fix: wait until the agent records it and run again; if `cmp-phase status` shows it refused, remove the key)", k, who)}
		}
	}
	return nil
}
