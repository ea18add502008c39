package extension

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/steer"
)

// Request is an action's body: the phase it names (approve, reject, promote), why, and,
// for pause, when the pause ends by itself (RFC 3339, optional).
type Request struct {
	Phase  string `json:"phase,omitempty"`
	Reason string `json:"reason"`
	Until  string `json:"until,omitempty"`
}

// Result is an action's answer.
type Result struct {
	Recorded string `json:"recorded"`
	Rollout  string `json:"rollout"`
	By       string `json:"by"`
}

// verbs are the actions the UI may take, each the CLI verb of the same name.
var verbs = map[string]struct {
	phase bool // names a phase
	run   func(ctx context.Context, r steer.Rollout, req Request) error
}{
	"approve": {true, func(ctx context.Context, r steer.Rollout, q Request) error { return r.Approve(ctx, q.Phase) }},
	"reject":  {true, func(ctx context.Context, r steer.Rollout, q Request) error { return r.Reject(ctx, q.Phase) }},
	"promote": {true, func(ctx context.Context, r steer.Rollout, q Request) error { return r.Promote(ctx, q.Phase) }},
	"pause":   {false, func(ctx context.Context, r steer.Rollout, q Request) error { return r.Pause(ctx, q.Until) }},
	"resume":  {false, func(ctx context.Context, r steer.Rollout, _ Request) error { return r.Resume(ctx) }},
}

// action records a verb with the identity argocd-server passes, through steer: the CLI's
// validation, the same keys, and for approve and reject the approver's user and groups,
// which the agent checks against the gate's groups and its distinct approvers.
func (h *handler) action(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("verb")
	v, ok := verbs[name]
	if !ok {
		refuse(w, http.StatusNotFound, "no action "+name+" (fix: one of approve, reject, pause, resume, promote)")
		return
	}
	p, err := parentOf(r)
	if err != nil {
		refuse(w, http.StatusBadRequest, err.Error())
		return
	}
	user := strings.TrimSpace(r.Header.Get(HeaderUsername))
	if user == "" {
		refuse(w, http.StatusForbidden, "no user named in "+HeaderUsername+" (fix: log in to Argo CD as a user)")
		return
	}
	req, code, err := decode(r)
	if err == nil && v.phase && req.Phase == "" {
		code, err = http.StatusBadRequest, errors.New(`the action names no phase (fix: {"phase": "<phase>", "reason": "<why>"})`)
	}
	if err != nil {
		refuse(w, code, err.Error())
		return
	}
	f, ok := h.find(w, r, p)
	if !ok {
		return
	}
	ro, err := steer.Open(r.Context(), h.o.ConfigMaps, h.o.Namespace, f.rollout, user, req.Reason)
	if err != nil {
		h.failed(w, "open the rollout", f.rollout, err)
		return
	}
	ro.Approver = &steer.Identity{User: user}
	if h.o.TrustGroups {
		var readable bool
		if ro.Approver.Groups, readable = groups(r.Header.Get(HeaderGroups)); !readable {
			h.o.Log.Warn("extension groups not recorded", "user", user, "reason", unreadableGroups)
		}
	}
	err = v.run(r.Context(), ro, req)
	if refused := (*steer.Refused)(nil); errors.As(err, &refused) {
		refuse(w, http.StatusConflict, refused.Error())
		return
	} else if err != nil {
		h.failed(w, "record "+name, f.rollout, err)
		return
	}
	h.o.Log.Info("extension action recorded", "action", name, "rollout", f.rollout, "phase", req.Phase, "user", user, "parent", p.name)
	writeJSON(w, http.StatusOK, Result{Recorded: name, Rollout: f.rollout, By: user})
}

// decode reads an action's body (at most MaxBody bytes, one JSON object, known fields).
func decode(r *http.Request) (Request, int, error) {
	var req Request
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return req, http.StatusRequestEntityTooLarge, errors.New("the body is too large (fix: a phase and a reason, under 4 KiB)")
		}
		return req, http.StatusBadRequest, errors.New(`the body is not an action (fix: {"phase": "<phase>", "reason": "<why>"})`)
	}
	if strings.TrimSpace(req.Reason) == "" {
		return req, http.StatusBadRequest, errors.New(`the action gives no reason (fix: {"reason": "<why>"}, as the CLI's --reason)`)
	}
	return req, 0, nil
}

// unreadableGroups says why a groups header is not recorded, and the fix.
const unreadableGroups = "a group holds '=' (an LDAP DN?), and argocd-server joins groups with commas, so a group with a comma cannot be told from two (cn=dev,sre would count as sre): the approval is recorded without groups (fix: give gates groups without commas, e.g. map LDAP groups to their cn in Dex, or approve with the CLI)"

// groups reads Argo CD's groups header, which joins the user's groups with commas: a group
// holding a comma is split there, and cannot be told from two. Such groups are LDAP DNs
// (cn=dev,ou=groups,…), so a header with an item holding '=' is not readable: no groups
// (readable false), rather than a fragment of a DN counted as a group of its own.
func groups(h string) (out []string, readable bool) {
	for g := range strings.SplitSeq(h, ",") {
		if g = strings.TrimSpace(g); g != "" {
			out = append(out, g)
		}
		if strings.Contains(g, "=") {
			return nil, false
		}
	}
	return out, true
}
