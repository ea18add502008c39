package status

import (
	"maps"
	"slices"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// Doc is the status of one rollout. Its JSON field names are stable (documented in
// docs/operating.md, "The status document"); fields are only ever added.
type Doc struct {
	Rollout    string   `json:"rollout"`
	Generation int64    `json:"generation"`
	Deployed   string   `json:"deployed,omitempty"`
	Revision   string   `json:"revision,omitempty"` // of the current (or last) rollout
	Status     string   `json:"status"`             // the rollout's, or Idle
	Reason     string   `json:"reason,omitempty"`
	Phase      string   `json:"phase,omitempty"` // the current phase
	Paused     *Pause   `json:"paused,omitempty"`
	Skipped    []string `json:"skipped,omitempty"`
	Phases     []Phase  `json:"phases,omitempty"`
	Rejected   []string `json:"rejected,omitempty"` // refused edits, each with its fix
	// Commits maps each revision in use to the commit its children are pinned to (only
	// revisions with pinned commits).
	Commits map[string]string `json:"commits,omitempty"`
	// Children are the deployed and admitted children with the revision and commit each runs.
	Children []Child `json:"children,omitempty"`
	// Unphased are children following a moving ref cmp-phase cannot see (child → repo@ref).
	Unphased map[string]string `json:"unphased,omitempty"`
	// LeftOut are children no phase selects whose template cannot render (child → why).
	LeftOut map[string]string `json:"leftOut,omitempty"`
	// StartedAt and EndedAt are the rollout's (EndedAt once it reached a terminal status).
	StartedAt time.Time `json:"startedAt,omitzero"`
	EndedAt   time.Time `json:"endedAt,omitzero"`
	// History is what happened in the rollout, oldest first (the state keeps the latest 100).
	History []Entry `json:"history,omitempty"`
	// AfterDelete are the post-delete hooks' runs (the state's own ledger, outside any phase).
	AfterDelete []Hook `json:"afterDelete,omitempty"`
	// FailureBudget is the rollout-wide maxFailures and its failures so far (absent: none).
	FailureBudget *Budget `json:"failureBudget,omitempty"`
	// Window is the change window holding the running rollout, with its next opening.
	Window *Window `json:"window,omitempty"`
	// Tracks are the rollout's tracks once a phase's tracks split it (absent: no split).
	Tracks []Track `json:"tracks,omitempty"`
	// Shards are a sharded rollout's parents, one per shard (absent: one parent).
	Shards []Shard `json:"shards,omitempty"`
}

// Entry is one line of the rollout's history.
type Entry struct {
	At      time.Time `json:"at"`
	Event   string    `json:"event"`
	Message string    `json:"message"`
}

// Child is one deployed or admitted child and what it runs.
type Child struct {
	Name     string `json:"name"`
	Revision string `json:"revision"`
	Commit   string `json:"commit,omitempty"`
}

// Pause is a person's pause.
type Pause struct {
	Reason string     `json:"reason"`
	By     string     `json:"by,omitempty"`
	Since  time.Time  `json:"since"`
	Until  *time.Time `json:"until,omitempty"`
	// Fleet: the fleet-wide stop (cmp-phase stop-all), lifted by resume-all only.
	Fleet bool `json:"fleet,omitempty"`
}

// Phase is one phase of the rollout.
type Phase struct {
	Name      string     `json:"name"`
	Status    string     `json:"status"`
	Members   int        `json:"members"`
	Admitted  int        `json:"admitted"`
	SoakUntil *time.Time `json:"soakUntil,omitempty"`
	// DeadlineAt is when a member still waiting is Errored (the phase's progressDeadline,
	// or the default from its last admission); absent with progressDeadline: none.
	DeadlineAt *time.Time `json:"deadlineAt,omitempty"`
	ApprovedBy string     `json:"approvedBy,omitempty"`
	Clusters   []Cluster  `json:"clusters,omitempty"`
	Hooks      []Hook     `json:"hooks,omitempty"`
	StartedAt  time.Time  `json:"startedAt,omitzero"`
	EndedAt    time.Time  `json:"endedAt,omitzero"` // once the phase is over

	// Approval is the phase's approval gate and its answers (absent: no gate recorded).
	Approval *Approval `json:"approval,omitempty"`
	// Track is the track whose copy of the phase this is (absent: a shared phase).
	Track string `json:"track,omitempty"`
}

// Cluster is one admitted child.
type Cluster struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	// AdmittedAt is when the phase admitted it; SettledAt when it was done (or failed).
	AdmittedAt time.Time `json:"admittedAt,omitzero"`
	SettledAt  time.Time `json:"settledAt,omitzero"`
}

// Hook is one run of the phase's hook ledger.
type Hook struct {
	Key      string `json:"key"` // kind/name[/cluster]
	Status   string `json:"status"`
	Attempts int    `json:"attempts,omitempty"`
	Message  string `json:"message,omitempty"`
	// StartedAt, FinishedAt and Duration (a Go duration such as "1.5s") of the run as the
	// ledger has them; FinishedAt and Duration once it ended.
	StartedAt  time.Time `json:"startedAt,omitzero"`
	FinishedAt time.Time `json:"finishedAt,omitzero"`
	Duration   string    `json:"duration,omitempty"`
}

// Idle is the document's status when no rollout runs.
const Idle = "Idle"

// Of builds the status document of a rollout from its state.
func Of(rollout string, st *state.State) Doc {
	d := Outline(rollout, st)
	d.Commits, d.Children = children(st)
	if r := st.Rollout; r != nil {
		for i, ph := range r.Phases {
			d.Phases[i].Clusters, d.Phases[i].Hooks = clusters(ph), hookRuns(ph)
		}
		d.History = history(r.History)
	}
	d.AfterDelete = hookRuns(state.PhaseState{Hooks: st.AfterDelete})
	return d
}

// Outline is the document without what it says per child (the phases' clusters and hooks,
// children, commits): all Text reads, cheap enough for every reconcile of a large fleet.
func Outline(rollout string, st *state.State) Doc {
	d := Doc{Rollout: rollout, Generation: st.Generation, Deployed: st.Deployed, Status: Idle}
	if p := st.Paused; p != nil {
		d.Paused = &Pause{Reason: p.Reason, By: p.By, Since: p.Since, Until: p.Until, Fleet: p.Fleet}
	}
	for _, k := range slices.Sorted(maps.Keys(st.Rejected)) {
		d.Rejected = append(d.Rejected, st.Rejected[k])
	}
	r := st.Rollout
	if r == nil {
		return d
	}
	d.Revision, d.Status, d.Reason, d.Skipped, d.Unphased, d.LeftOut = r.Revision, string(r.Status), r.Reason, r.Skipped, r.Unphased, r.LeftOut
	d.StartedAt, d.EndedAt = r.StartedAt, r.EndedAt
	d.FailureBudget = budgetOf(r)
	d.Window = window(r)
	if r.Phase < len(r.Phases) {
		d.Phase = r.Phases[r.Phase].Name
	}
	for _, ph := range r.Phases {
		d.Phases = append(d.Phases, Phase{Name: ph.Name, Status: string(ph.Status), Members: len(ph.Members), Admitted: len(ph.Admitted),
			SoakUntil: ph.SoakUntil, DeadlineAt: ph.DeadlineAt, ApprovedBy: ph.ApprovedBy, StartedAt: deref(ph.StartedAt), EndedAt: ph.EndedAt,
			Approval: approvalOf(ph.Approval), Track: ph.Track})
	}
	d.Tracks = tracksOf(r)
	return d
}

func clusters(ph state.PhaseState) []Cluster {
	var out []Cluster
	for _, c := range slices.Sorted(maps.Keys(ph.Clusters)) {
		cs := ph.Clusters[c]
		out = append(out, Cluster{Name: c, Status: string(cs.Status), Reason: cs.Reason, AdmittedAt: cs.AdmittedAt, SettledAt: cs.SettledAt})
	}
	return out
}

func hookRuns(ph state.PhaseState) []Hook {
	var out []Hook
	for _, k := range slices.Sorted(maps.Keys(ph.Hooks)) {
		h := ph.Hooks[k]
		out = append(out, Hook{Key: k, Status: string(h.Status), Attempts: h.Attempts, Message: h.Message,
			StartedAt: h.StartedAt, FinishedAt: deref(h.FinishedAt), Duration: hookDuration(h)})
	}
	return out
}

// children lists what every deployed or admitted child runs.
func children(st *state.State) (map[string]string, []Child) {
	commits := map[string]string{}
	for id, body := range st.Revisions {
		if c := spec.CommitOf(body); c != "" {
			commits[id] = c
		}
	}
	keys := slices.Clone(st.Children)
	for c := range st.Rollout.AdmittedPhases() {
		keys = append(keys, c)
	}
	slices.Sort(keys)
	revisionOf := st.Assignments()
	var out []Child
	for _, k := range slices.Compact(keys) {
		if rev, _, ok := revisionOf(k); ok {
			out = append(out, Child{Name: k, Revision: rev, Commit: commits[rev]})
		}
	}
	if len(commits) == 0 {
		commits = nil
	}
	return commits, out
}

// at names the commit a revision's children are pinned to, if any.
func at(d Doc, rev string) string {
	if c := d.Commits[rev]; c != "" {
		return " at commit " + short(c)
	}
	return ""
}

func gate(p Phase, now time.Time) string {
	asked := p.Approval != nil && p.ApprovedBy == "" && (p.Approval.AskedAt != nil || p.Approval.Rejection != nil)
	switch {
	case asked: // a gate that asks is what the phase waits for, also once its soak ended
		return approvalGate(p)
	case p.SoakUntil != nil && p.Status == string(state.PhaseSoaking):
		return "soak ends in " + max(p.SoakUntil.Sub(now), 0).Round(time.Second).String()
	case p.ApprovedBy != "":
		return "approved by " + p.ApprovedBy
	case p.Approval != nil:
		return approvalGate(p)
	}
	return ""
}

func short(rev string) string { return rev[:min(12, len(rev))] }
