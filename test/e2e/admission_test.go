//go:build e2e

package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestTheAPIServerChecksWhoApproves: with manifests/admission's ValidatingAdmissionPolicy,
// the real kube-apiserver refuses an approval written into a state ConfigMap by someone
// other than the approver it names (alice writing approver: bob), and one naming a group
// its author is not in; it admits alice's own, and edits that carry no new answer. The
// harness's agent runs as admin, not as the cmp-phase-agent ServiceAccount the policy
// exempts, so the test's copy exempts admin too (its other tests' agents consume keys).
// Every field an approval consists of is guarded (issue 47): alice changing only by (her
// approval then bob's, opening a two-person gate alone), removing approver (so by names
// someone else), or bob changing alice's reject's reason, are refused.
func TestTheAPIServerChecksWhoApproves(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	policy, binding := admissionPolicy(t)
	policy.Spec.MatchConditions[0].Expression += " && request.userInfo.username != 'admin'"
	adm := env.Kube.AdmissionregistrationV1()
	if _, err := adm.ValidatingAdmissionPolicies().Create(ctx, policy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = adm.ValidatingAdmissionPolicies().Delete(context.Background(), policy.Name, metav1.DeleteOptions{})
	})
	if _, err := adm.ValidatingAdmissionPolicyBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = adm.ValidatingAdmissionPolicyBindings().Delete(context.Background(), binding.Name, metav1.DeleteOptions{})
	})
	const rollout = "admitted"
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: contract.StateConfigMap(rollout), Namespace: framework.ArgoNamespace,
		Labels: map[string]string{contract.LabelState: contract.MarkerValue}}, Data: map[string]string{"status": "test"}}
	if _, err := env.Kube.CoreV1().ConfigMaps(framework.ArgoNamespace).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	approvers(ctx, t, rollout, "alice", "bob")
	alice, bob := as(t, "alice", "sre"), as(t, "bob", "sre")

	writeAs := func(who kubernetes.Interface, data map[string]string) error {
		cur, err := who.CoreV1().ConfigMaps(framework.ArgoNamespace).Get(ctx, cm.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Data = data
		_, err = who.CoreV1().ConfigMaps(framework.ArgoNamespace).Update(ctx, cur, metav1.UpdateOptions{})
		return err
	}
	write := func(data map[string]string) error { return writeAs(alice, data) }
	// The policy takes effect within seconds of its creation: until alice's forged approval
	// is refused, nothing is proved.
	env.WaitFor(t, time.Minute, "the policy refuses alice writing approver: bob", func(context.Context) (bool, string) {
		err := write(map[string]string{"status": "test", "approve": "staging", "approver": "bob", "approver-groups": "sre"})
		if err == nil {
			_ = write(map[string]string{"status": "test"})
			return false, "admitted"
		}
		return strings.Contains(err.Error(), `approver is "bob", the request is alice`), err.Error()
	})
	err := write(map[string]string{"status": "test", "approve": "staging", "approver": "alice", "approver-groups": "sre,admins"})
	if err == nil || !strings.Contains(err.Error(), "names a group alice is not in") {
		t.Fatalf("alice naming a group she is not in: %v", err)
	}
	if err := write(map[string]string{"status": "test", "approve": "staging", "approver": "alice", "approver-groups": "sre, system:authenticated"}); err != nil {
		t.Fatalf("alice's own approval refused: %v", err)
	}
	if err := write(map[string]string{"status": "test", "approve": "staging", "approver": "alice", "approver-groups": "sre, system:authenticated", "pause": "hold"}); err != nil {
		t.Fatalf("an edit beside a pending approval refused: %v", err)
	}
	everyApprovalFieldIsGuarded(t, writeAs, alice, bob)
}

// everyApprovalFieldIsGuarded: by is who approves when approver is not written, so alice's
// own approval by by is admitted, and turning it into bob's by changing only by, or by
// dropping approver, is refused; a reject's reason is part of it, so bob may not rewrite
// alice's, and may pause beside it.
func everyApprovalFieldIsGuarded(t *testing.T, writeAs func(kubernetes.Interface, map[string]string) error, alice, bob kubernetes.Interface) {
	t.Helper()
	write := func(data map[string]string) error { return writeAs(alice, data) }
	refusedAs := func(who kubernetes.Interface, what, wantApprover, user string, data map[string]string) {
		t.Helper()
		err := writeAs(who, data)
		if err == nil || !strings.Contains(err.Error(), `approver is "`+wantApprover+`", the request is `+user) {
			t.Fatalf("%s: want it refused, got %v", what, err)
		}
	}
	if err := write(map[string]string{"status": "test", "approve": "prod", "by": "alice"}); err != nil {
		t.Fatalf("alice's approval by by refused: %v", err)
	}
	refusedAs(alice, "alice changing only by to bob", "bob", "alice", map[string]string{"status": "test", "approve": "prod", "by": "bob"})
	if err := write(map[string]string{"status": "test", "approve": "prod", "approver": "alice", "by": "alice"}); err != nil {
		t.Fatalf("alice naming herself approver refused: %v", err)
	}
	if err := write(map[string]string{"status": "test", "approve": "prod", "approver": "alice", "by": "bob"}); err != nil {
		t.Fatalf("by beside an approver is not who approves, yet it was refused: %v", err)
	}
	refusedAs(alice, "alice dropping approver so that by names bob", "bob", "alice", map[string]string{"status": "test", "approve": "prod", "by": "bob"})
	if err := write(map[string]string{"status": "test", "reject": "prod", "approver": "alice", "reason": "error rate up"}); err != nil {
		t.Fatalf("alice's reject refused: %v", err)
	}
	refusedAs(bob, "bob rewriting alice's reject's reason", "alice", "bob", map[string]string{"status": "test", "reject": "prod", "approver": "alice", "reason": "all fine, approve it"})
	if err := writeAs(bob, map[string]string{"status": "test", "reject": "prod", "approver": "alice", "reason": "error rate up", "pause": "hold"}); err != nil {
		t.Fatalf("bob's pause beside alice's pending reject refused: %v", err)
	}
}

// admissionPolicy reads manifests/admission/approvals.yaml.
func admissionPolicy(t *testing.T) (*admissionv1.ValidatingAdmissionPolicy, *admissionv1.ValidatingAdmissionPolicyBinding) {
	b, err := os.ReadFile(filepath.Join(framework.RepoRoot(), "manifests", "admission", "approvals.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(b), "\n---\n")
	if len(docs) != 2 {
		t.Fatalf("approvals.yaml holds %d documents, want the policy and its binding", len(docs))
	}
	var p admissionv1.ValidatingAdmissionPolicy
	var pb admissionv1.ValidatingAdmissionPolicyBinding
	if err := yaml.UnmarshalStrict([]byte(docs[0]), &p); err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict([]byte(docs[1]), &pb); err != nil {
		t.Fatal(err)
	}
	return &p, &pb
}

// as is a client of the API server impersonating user in groups.
func as(t *testing.T, user string, groups ...string) kubernetes.Interface {
	cfg := rest.CopyConfig(env.RestConfig)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: user, Groups: groups}
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
