package agent

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argofake "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks"

	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// TestJobClientsAreTheControlClusters: job hooks reach only the agent's own client and
// namespace, and reading them reads no Secret.
func TestJobClientsAreTheControlClusters(t *testing.T) {
	kube := fake.NewSimpleClientset()
	if c, ns := newJobClients(kube, "argocd").Control(); c != kubernetes.Interface(kube) || ns != "argocd" || len(kube.Actions()) != 0 {
		t.Fatalf("control %v %s, %d actions", c, ns, len(kube.Actions()))
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

// clientsFor are jobClients reaching prod1 through a fake API: the AppProject apps
// (permitting what spec says) and prod1's cluster Secret with config; the client they
// build is recorded, and the log written to logs.
func clientsFor(t *testing.T, projSpec v1alpha1.AppProjectSpec, config string, logs *bytes.Buffer) (jobClients, *fake.Clientset, *[]*rest.Config) {
	t.Helper()
	kube := fake.NewSimpleClientset(credSecret(config))
	argo := argofake.NewSimpleClientset(&v1alpha1.AppProject{ObjectMeta: metav1.ObjectMeta{Name: "apps", Namespace: "argocd"}, Spec: projSpec})
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	name := func(server string) (string, error) {
		if server != prod1.Server {
			return "", errors.New("no cluster Secret names server " + server)
		}
		return "cluster-prod-1", nil
	}
	j := newJobClients(kube, "argocd").reaching(argo, name, func(string) ([]*v1alpha1.Cluster, error) { return nil, nil }, log)
	var built []*rest.Config
	j.newClient = func(c *rest.Config) (kubernetes.Interface, error) {
		built = append(built, c)
		return fake.NewSimpleClientset(), nil
	}
	return j, kube, &built
}

var anywhere = v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{{Server: "*", Namespace: "*"}}}

// TestJobClientsReachTheCluster: a per-cluster Job's client comes from the one cluster
// Secret, read by a direct GET for the call (never listed), after the AppProject permits
// it; the in-cluster server is the agent's own client; refusals read no credentials; no
// credential reaches an error or the log.
func TestJobClientsReachTheCluster(t *testing.T) {
	token := `{"bearerToken":"` + testToken + `","tlsClientConfig":{"caData":"` + b64("CA") + `"}}`
	for _, tc := range []struct {
		name, config string
		proj         v1alpha1.AppProjectSpec
		target       func(hooks.JobTarget) hooks.JobTarget
		want         string // error; "" a client
		reads        int    // Secret GETs of the credentials
		builds       int
	}{
		{"token", token, anywhere, nil, "", 1, 1},
		{"in-cluster", token, anywhere, func(t hooks.JobTarget) hooks.JobTarget {
			t.Server = v1alpha1.KubernetesInternalAPIServerAddr
			return t
		}, "", 0, 0},
		{"project denies", token, v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{{Server: "*", Namespace: "kube-system"}}}, nil,
			"AppProject apps does not permit destination server https://prod-1.example:6443 (cluster prod-1) namespace guestbook", 0, 0},
		{"no such project", token, anywhere, func(t hooks.JobTarget) hooks.JobTarget {
			t.Project = "other"
			return t
		}, "read AppProject other for the hook's Job in cluster prod-1", 0, 0},
		{"default project", token, anywhere, func(t hooks.JobTarget) hooks.JobTarget {
			t.Project = ""
			return t
		}, "read AppProject default", 0, 0},
		{"exec", `{"bearerToken":"` + testToken + `","execProviderConfig":{"command":"/bin/steal"}}`, anywhere, nil, "execProviderConfig runs a program", 1, 0},
		{"unregistered", token, anywhere, func(t hooks.JobTarget) hooks.JobTarget {
			t.Server = "https://nowhere"
			return t
		}, "cluster prod-1: no cluster Secret names server https://nowhere", 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			j, kube, built := clientsFor(t, tc.proj, tc.config, &logs)
			target := prod1
			if tc.target != nil {
				target = tc.target(target)
			}
			c, err := j.Cluster(context.Background(), target)
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			reads := 0
			for _, a := range kube.Actions() {
				if a.GetResource().Resource != "secrets" || a.GetVerb() != "get" {
					t.Fatalf("more than a GET of the cluster Secret: %v", a)
				}
				reads++
			}
			if reads != tc.reads || len(*built) != tc.builds {
				t.Fatalf("%d Secret reads, %d clients built", reads, len(*built))
			}
			if tc.name == "in-cluster" && c != kubernetes.Interface(kube) {
				t.Fatal("the in-cluster server is not the agent's own client")
			}
			if tc.builds == 1 && ((*built)[0].BearerToken != testToken || !strings.Contains(logs.String(), `"auth":"bearerToken"`)) {
				t.Fatalf("built %+v, logged %s", (*built)[0], logs.String())
			}
			out := logs.String()
			if err != nil {
				out += err.Error()
			}
			assertNoCredential(t, out)
		})
	}
	if _, err := newJobClients(fake.NewSimpleClientset(), "argocd").Cluster(context.Background(), prod1); err == nil || !strings.Contains(err.Error(), "not enabled") {
		t.Fatalf("a factory without the argo client: %v", err)
	}
}

// TestClusterSecretName: the cluster Secret of a server is found in the trimmed cache, the
// one naming it; none or two are errors.
func TestClusterSecretName(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for name, server := range map[string]string{"cluster-prod-1": prod1.Server, "cluster-a": "https://twice", "cluster-b": "https://twice"} {
		s := credSecret("")
		s.Name, s.Data = name, map[string][]byte{contract.ClusterSecretServer: []byte(server)}
		if err := idx.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	a := &Agent{caches: &caches{secrets: corelisters.NewSecretLister(idx).Secrets("argocd")}}
	if name, err := a.clusterSecretName(prod1.Server); err != nil || name != "cluster-prod-1" {
		t.Fatalf("got %q %v", name, err)
	}
	if _, err := a.clusterSecretName("https://nowhere"); err == nil || !strings.Contains(err.Error(), "no cluster Secret names server https://nowhere") {
		t.Fatalf("none: %v", err)
	}
	if _, err := a.clusterSecretName("https://twice"); err == nil || !strings.Contains(err.Error(), "[cluster-a cluster-b] all name server") {
		t.Fatalf("two: %v", err)
	}
	if _, err := (&Agent{}).clusterSecretName(prod1.Server); err == nil {
		t.Fatal("no caches yet")
	}
}

// TestJobClientsCheckTheSecretsOwnName: the AppProject check matches a destination's name
// against the cluster Secret's own name, as Argo CD does: a nameless Secret (the inventory
// calls it by its server URL) is not matched by a destination name: '*'.
func TestJobClientsCheckTheSecretsOwnName(t *testing.T) {
	byName := v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{{Name: "*", Namespace: "*"}}}
	nameless := cachesOf(t, clusterSecret("", prod1.Server, nil))
	named := cachesOf(t, clusterSecret("prod-1", prod1.Server, nil))
	for _, tc := range []struct {
		name    string
		secrets *caches
		cluster string // the target's (the inventory's) cluster name
		want    string // error; "" permitted
	}{
		{"named Secret", named, "prod-1", ""},
		{"nameless Secret", nameless, prod1.Server, "does not permit destination"},
		{"no Secret cached: the target's name", &caches{}, "prod-1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			j, _, _ := clientsFor(t, byName, `{"bearerToken":"`+testToken+`"}`, &logs)
			a := &Agent{caches: tc.secrets}
			j = j.naming(a.clusterOwnName)
			target := prod1
			target.Cluster = tc.cluster
			_, err := j.Cluster(context.Background(), target)
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}
