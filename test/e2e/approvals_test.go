//go:build e2e

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestATwoPersonApproval: staging asks, once its checks and soak passed, for 2 approvals
// from group sre, given through the real CLI as impersonated users (the admin's --as and
// --as-group; the CLI records whom the API server's SelfSubjectReview names). alice (sre)
// leaves it waiting; alice again still (counted once, said so in status); carol (dev) does
// not count; bob (sre) opens it and the rollout completes, both approvals in the state.
func TestATwoPersonApproval(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "approve-two", "stop")
	r.edit = func(s string) string {
		if strings.Count(s, "        waitDuration: 10s\n") != 1 {
			t.Fatal("the phased spec no longer soaks staging for 10s")
		}
		return strings.Replace(s, "        waitDuration: 10s\n", "        waitDuration: 10s\n        approval: {required: 2, groups: [sre], afterChecks: true}\n", 1)
	}
	approvers(ctx, t, r.name, "alice", "bob", "carol")
	defer r.agent("agent-"+r.name, nil).Stop(5 * time.Second)
	rev := r.commit("v1", map[string]string{"v1": framework.Workload(r.name, "v1")})
	newParent(ctx, t, r.name, r.name+"/app", 0)
	gate := func(st *state.State) *state.ApprovalGate { return st.Rollout.Phases[1].Approval }
	r.waitState("staging asks for approval after its soak", func(st *state.State) bool { return gate(st) != nil && gate(st).AskedAt != nil })

	answers := []struct {
		user, group string
		counted     bool
		note        string
	}{
		{"alice", "sre", true, ""},
		{"alice", "sre", false, "already approved: counts once"},
		{"carol", "dev", false, "not in sre (groups: dev"},
	}
	for i, a := range answers {
		r.cli("approve", r.name, "staging", "--reason", "checks green", "--as", a.user, "--as-group", a.group)
		st := r.waitState(a.user+"'s approval is recorded", func(st *state.State) bool { return len(gate(st).Approvals) == i+1 })
		got := gate(st).Approvals[i]
		if got.By != a.user || got.Counted != a.counted || !strings.Contains(got.Note, a.note) || !strings.Contains(strings.Join(got.Groups, ","), a.group) {
			t.Fatalf("approval %d: %+v", i, got)
		}
		if st.Rollout.Phase != 1 || len(st.Rollout.Phases[2].Admitted) != 0 || st.Rollout.Phases[1].ApprovedBy != "" {
			t.Fatalf("after %s the gate opened: phase %d %+v", a.user, st.Rollout.Phase, st.Rollout.Phases[1])
		}
	}
	out := r.cli("status", r.name)
	for _, want := range []string{"awaiting 1/2 approvals, 1 more from sre", "approved by alice", "already approved: counts once", "approved by carol"} {
		if !strings.Contains(out, want) {
			t.Fatalf("status lacks %q:\n%s", want, out)
		}
	}
	r.cli("approve", r.name, "staging", "--reason", "checks green", "--as", "bob", "--as-group", "sre")
	r.until("the approved rollout completes", rev, rollout.StatusCompleted, everywhere("v1"))
	st, err := r.state(ctx)
	if err != nil {
		t.Fatal(err)
	}
	g := gate(st)
	if g.Counted() != 2 || g.OpenedAt == nil || !strings.Contains(st.Rollout.Phases[1].ApprovedBy, "alice") || !strings.Contains(st.Rollout.Phases[1].ApprovedBy, "bob") {
		t.Fatalf("the state's approvals: %+v approved by %q", g, st.Rollout.Phases[1].ApprovedBy)
	}
	for _, a := range g.Approvals {
		if a.Counted && (a.At.IsZero() || a.Reason != "checks green") {
			t.Fatalf("an approval without when or why: %+v", a)
		}
	}
}

// approvers lets the users read the rollout's plan and edit its state ConfigMap, as an
// installation grants the people who steer a rollout (RBAC on the ConfigMap is the
// boundary); SelfSubjectReview is every authenticated user's (system:basic-user).
func approvers(ctx context.Context, t *testing.T, rolloutName string, users ...string) {
	t.Helper()
	name := "approvers-" + rolloutName
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: framework.ArgoNamespace}, Rules: []rbacv1.PolicyRule{{
		APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "update"},
		ResourceNames: []string{contract.PlanConfigMap(rolloutName), contract.StateConfigMap(rolloutName)},
	}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: framework.ArgoNamespace},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}}
	for _, u := range users {
		binding.Subjects = append(binding.Subjects, rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: u})
	}
	if _, err := env.Kube.RbacV1().Roles(framework.ArgoNamespace).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Kube.RbacV1().RoleBindings(framework.ArgoNamespace).Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}
