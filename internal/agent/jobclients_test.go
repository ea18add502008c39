package agent

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

func credentialSecret(name, server, config string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "argocd", Labels: map[string]string{contract.LabelSecretType: contract.SecretTypeCluster}},
		Data:       map[string][]byte{"server": []byte(server), "name": []byte(name), "config": []byte(config)},
	}
}

func TestJobClientsReadArgoCDsCredentialsWhenAsked(t *testing.T) {
	kube := fake.NewSimpleClientset(
		credentialSecret("prod-1", "https://prod-1.example.com/", `{"bearerToken":"s3cr3t-token","tlsClientConfig":{"insecure":true}}`),
		credentialSecret("broken", "https://broken.example.com", `{"bearerToken": s3cr3t`),
	)
	var got []*rest.Config
	j := newJobClients(kube, "argocd")
	j.newClient = func(c *rest.Config) (kubernetes.Interface, error) {
		got = append(got, c)
		return fake.NewSimpleClientset(), nil
	}
	ctx := context.Background()
	if c, err := j.Cluster(ctx, contract.InClusterServer); err != nil || c != kubernetes.Interface(kube) || len(kube.Actions()) != 0 {
		t.Fatalf("in-cluster: %v, %d actions", err, len(kube.Actions()))
	}
	for range 2 { // never cached: each run reads the Secret again
		if _, err := j.Cluster(ctx, "https://prod-1.example.com"); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 2 || got[0].Host != "https://prod-1.example.com" || got[0].BearerToken != "s3cr3t-token" || len(kube.Actions()) != 2 {
		t.Fatalf("configs %+v, %d reads", got, len(kube.Actions()))
	}
	_, err := j.Cluster(ctx, "https://broken.example.com")
	if err == nil || strings.Contains(err.Error(), "s3cr3t") || !strings.Contains(err.Error(), "cluster Secret broken") {
		t.Fatalf("broken: %v", err)
	}
	if _, err := j.Cluster(ctx, "https://gone.example.com"); err == nil || !strings.Contains(err.Error(), "no Argo CD cluster Secret in argocd has server https://gone.example.com") {
		t.Fatalf("gone: %v", err)
	}
	if c, ns := j.Control(); c != kubernetes.Interface(kube) || ns != "argocd" {
		t.Fatalf("control %v %s", c, ns)
	}
}

// TestRunStartedIsTheLedgers: a job hook's Job is told apart from an earlier run's by the
// ledger's start of the run, which every agent reads alike.
func TestRunStartedIsTheLedgers(t *testing.T) {
	at := time.Unix(1700000000, 0)
	r := &state.Rollout{Phases: []state.PhaseState{{Hooks: map[string]state.HookRun{"pre/migrate": {StartedAt: at}}}}}
	for _, tc := range []struct {
		act  rollout.Action
		want time.Time
	}{
		{rollout.Action{Key: "pre/migrate", Phase: 0}, at},
		{rollout.Action{Key: "check/smoke", Phase: 0}, time.Time{}},
		{rollout.Action{Key: "pre/migrate", Phase: 3}, time.Time{}},
		{rollout.Action{Key: "pre/migrate", Phase: -1}, time.Time{}},
	} {
		if got := runStarted(r, tc.act); !got.Equal(tc.want) {
			t.Errorf("%+v: %v, want %v", tc.act, got, tc.want)
		}
	}
}
