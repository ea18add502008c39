package control

import (
	"context"
	"fmt"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// approvals reads reject and the approver keys: the approver belongs to an approve or a
// reject, and a reject says why in reason.
func (c *Controls) approvals(data map[string]string, phases []string, bad func(string, string, ...any)) {
	c.Reject = phase(data, contract.RejectKey, phases, bad)
	c.Approver = strings.TrimSpace(data[contract.ApproverKey])
	c.ApproverGroups = skip(data[contract.ApproverGroupsKey])
	_, approving := data[contract.ApproveKey]
	_, rejecting := data[contract.RejectKey]
	if approving && rejecting {
		bad(contract.RejectKey, "approve and reject at once (fix: keep one)")
		c.Reject = ""
	}
	if c.Reject != "" && c.Reason == "" {
		bad(contract.RejectKey, "needs a reason (fix: write why in reason, e.g. reason: \"error budget spent\")")
		c.Reject = ""
	}
	for _, k := range []string{contract.ApproverKey, contract.ApproverGroupsKey} {
		if _, ok := data[k]; ok && !approving && !rejecting {
			bad(k, "%s only goes with approve or reject (fix: remove it)", k)
		}
	}
	if _, ok := data[contract.ApproverKey]; ok && c.Approver == "" {
		bad(contract.ApproverKey, "names nobody (fix: the approver's user name, or remove it to use by)")
	}
}

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
			return &Refused{Problem: Problem{Key: k, Value: v, Message: fmt.Sprintf(
				"%s by %q is not recorded yet (fix: wait until the agent records it and run again; if `cmp-phase status` shows it refused, remove the key)", k, who)}}
		}
	}
	return nil
}
