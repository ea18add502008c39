package control

import (
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// approvals reads reject and the approver keys: the approver belongs to an approve or a
// reject, and a reject says why in reason.
func (c *Controls) approvals(data map[string]string, phases []string, bad func(string, string, ...any)) {
	c.Reject = phase(data, contract.RejectKey, phases, bad)
	c.Approver = strings.TrimSpace(data[contract.ApproverKey])
	c.ApproverGroups = SkipList(data[contract.ApproverGroupsKey])
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
