package jobhook

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argofake "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned/fake"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// TestJobClientsAreTheControlClusters: job hooks reach only the agent's own client and
// namespace, and reading them reads no Secret.
func TestJobClientsAreTheControlClusters(t *testing.T) {
	kube := fake.NewSimpleClientset()
	if c, ns := newClients(hooks.Clusters{Kube: kube, Namespace: "argocd"}).Control(); c != kubernetes.Interface(kube) || ns != "argocd" || len(kube.Actions()) != 0 {
		t.Fatalf("control %v %s, %d actions", c, ns, len(kube.Actions()))
	}
}

// clientsFor are the clients reaching prod1 through a fake API: the AppProject apps
// (permitting what spec says) and prod1's cluster Secret with config; the client they
// build is recorded, and the log written to logs.
func clientsFor(t *testing.T, projSpec v1alpha1.AppProjectSpec, config string, logs *bytes.Buffer) (clusterClients, *fake.Clientset, *[]*rest.Config) {
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
	j := newClients(hooks.Clusters{Kube: kube, Namespace: "argocd", Argo: argo, SecretName: name,
		ProjectClusters: func(string) ([]*v1alpha1.Cluster, error) { return nil, nil }, Log: log})
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
		target       func(hooks.Target) hooks.Target
		want         string // error; "" a client
		reads        int    // Secret GETs of the credentials
		builds       int
	}{
		{"token", token, anywhere, nil, "", 1, 1},
		{"in-cluster", token, anywhere, func(t hooks.Target) hooks.Target {
			t.Server = v1alpha1.KubernetesInternalAPIServerAddr
			return t
		}, "", 0, 0},
		{"project denies", token, v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{{Server: "*", Namespace: "kube-system"}}}, nil,
			"AppProject apps does not permit destination server https://prod-1.example:6443 (cluster prod-1) namespace guestbook", 0, 0},
		{"no such project", token, anywhere, func(t hooks.Target) hooks.Target {
			t.Project = "other"
			return t
		}, "read AppProject other for the hook's Job in cluster prod-1", 0, 0},
		{"default project", token, anywhere, func(t hooks.Target) hooks.Target {
			t.Project = ""
			return t
		}, "read AppProject default", 0, 0},
		{"exec", `{"bearerToken":"` + testToken + `","execProviderConfig":{"command":"/bin/steal"}}`, anywhere, nil, "execProviderConfig runs a program", 1, 0},
		{"unregistered", token, anywhere, func(t hooks.Target) hooks.Target {
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
	if _, err := newClients(hooks.Clusters{Kube: fake.NewSimpleClientset(), Namespace: "argocd"}).Cluster(context.Background(), prod1); err == nil || !strings.Contains(err.Error(), "not enabled") {
		t.Fatalf("a factory without the argo client: %v", err)
	}
}

// TestJobClientsCheckTheSecretsOwnName: the AppProject check matches a destination's name
// against the cluster Secret's own name (hooks.Clusters.OwnName), as Argo CD does: a
// nameless Secret (the inventory calls it by its server URL) is not matched by a
// destination name: '*'.
func TestJobClientsCheckTheSecretsOwnName(t *testing.T) {
	byName := v1alpha1.AppProjectSpec{Destinations: []v1alpha1.ApplicationDestination{{Name: "*", Namespace: "*"}}}
	for _, tc := range []struct {
		name    string
		ownName func(string) (string, bool)
		cluster string // the target's (the inventory's) cluster name
		want    string // error; "" permitted
	}{
		{"named Secret", func(string) (string, bool) { return "prod-1", true }, "prod-1", ""},
		{"nameless Secret", func(string) (string, bool) { return "", true }, prod1.Server, "does not permit destination"},
		{"no Secret: the target's name", func(string) (string, bool) { return "", false }, "prod-1", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			j, _, _ := clientsFor(t, byName, `{"bearerToken":"`+testToken+`"}`, &logs)
			j.ownName = tc.ownName
			target := prod1
			target.Cluster = tc.cluster
			_, err := j.Cluster(context.Background(), target)
			if (err == nil) != (tc.want == "") || (err != nil && !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}
