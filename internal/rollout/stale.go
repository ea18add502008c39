package rollout

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// staleAnswers consumes, when the pass's rollout starts, the approvals, rejections and window
// overrides still waiting in the ConfigMap: they were written for another rollout (kept
// because their gate had not asked yet, or refused) and must not open, fail or override a
// gate of this one. It says so in a Warning Event and returns the pass's observations
// without them, so this pass does not act on them either.
func (ps *pass) staleAnswers() Observed {
	r, o := ps.st.Rollout, ps.o
	c := o.Controls
	if c == nil {
		return o
	}
	pending := map[string]string{contract.ApproveKey: c.Approve, contract.RejectKey: c.Reject,
		contract.ApproverKey: c.Approver, contract.ApproverGroupsKey: strings.Join(c.ApproverGroups, ","),
		contract.OverrideWindowKey: c.OverrideWindow}
	var stale []string
	for _, k := range []string{contract.ApproveKey, contract.RejectKey, contract.ApproverKey, contract.ApproverGroupsKey, contract.OverrideWindowKey} {
		if v := pending[k]; v != "" && !removes(ps.acts, k) {
			stale = append(stale, fmt.Sprintf("%s=%q", k, v))
			ps.consume(k)
		}
	}
	if len(stale) == 0 {
		return o
	}
	ps.warn(r, EvControlRejected, fmt.Sprintf("removed %s: written for another rollout, not for the rollout of revision %s (fix: write it again when this rollout asks)",
		strings.Join(stale, ", "), r.Revision))
	fresh := *c
	fresh.Approve, fresh.Reject, fresh.Approver, fresh.ApproverGroups, fresh.OverrideWindow = "", "", "", nil, ""
	o.Controls = &fresh
	return o
}

// removes reports whether acts already remove control key k (acted on this pass).
func removes(acts []Action, k string) bool {
	return slices.ContainsFunc(acts, func(a Action) bool { return a.Kind == ActConsume && a.Key == k })
}
