package agent

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	argofake "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned/fake"
	argolisters "github.com/argoproj/argo-cd/v3/pkg/client/listers/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

const testNS = "argocd"

// fakeAgent is an agent on fake API servers, its caches holding cached (the informers'
// view), its Events and logs kept.
type fakeAgent struct {
	*Agent
	kube   *kubefake.Clientset
	argo   *argofake.Clientset
	events *record.FakeRecorder
	logs   *bytes.Buffer
}

// newFakeAgent serves live on the fake API servers and cached from the caches.
func newFakeAgent(t *testing.T, live []runtime.Object, cached ...runtime.Object) *fakeAgent {
	t.Helper()
	var kubeObjs, argoObjs []runtime.Object
	for _, o := range live {
		if _, ok := o.(*v1alpha1.Application); ok {
			argoObjs = append(argoObjs, o)
		} else {
			kubeObjs = append(kubeObjs, o)
		}
	}
	f := &fakeAgent{kube: kubefake.NewClientset(kubeObjs...), argo: argofake.NewSimpleClientset(argoObjs...),
		events: record.NewFakeRecorder(100), logs: &bytes.Buffer{}}
	log := slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f.Agent = New(f.kube, f.argo, Options{Namespace: testNS}, log, f.events, Faults{})
	f.caches = cachesOf(t, cached...)
	t.Cleanup(f.queue.ShutDown)
	return f
}

// cachesOf are caches holding objs: plan ConfigMaps (by their label), other ConfigMaps,
// Secrets and Applications.
func cachesOf(t *testing.T, objs ...runtime.Object) *caches {
	t.Helper()
	idx := func() cache.Indexer {
		return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	}
	apps, plans, states, secrets, fleet := idx(), idx(), idx(), idx(), idx()
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *v1alpha1.Application:
			err = apps.Add(o)
		case *corev1.ConfigMap:
			if o.Labels[contract.LabelPlan] == contract.MarkerValue {
				err = plans.Add(o)
			} else if o.Name == contract.FleetConfigMap {
				err = fleet.Add(o)
			} else {
				err = states.Add(o)
			}
		case *corev1.Secret:
			err = secrets.Add(o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := apps.AddIndexers(cache.Indexers{byRollout: childIndex}); err != nil {
		t.Fatal(err)
	}
	return &caches{children: childrenOf(apps), apps: argolisters.NewApplicationLister(apps).Applications(testNS), plans: corelisters.NewConfigMapLister(plans).ConfigMaps(testNS),
		states: corelisters.NewConfigMapLister(states).ConfigMaps(testNS), secrets: corelisters.NewSecretLister(secrets).Secrets(testNS),
		fleet: corelisters.NewConfigMapLister(fleet).ConfigMaps(testNS)}
}

// writes counts the create, update and patch calls a fake clientset saw on resource.
func writes(actions []k8stesting.Action, resource string) int {
	n := 0
	for _, a := range actions {
		switch a.GetVerb() {
		case "create", "update", "patch":
			if a.GetResource().Resource == resource {
				n++
			}
		}
	}
	return n
}

// clusterSecret is an Argo CD cluster Secret.
func clusterSecret(name, server string, labels map[string]string) *corev1.Secret {
	l := map[string]string{contract.LabelSecretType: contract.SecretTypeCluster}
	for k, v := range labels {
		l[k] = v
	}
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "cluster-" + name, Namespace: testNS, Labels: l},
		Data: map[string][]byte{"name": []byte(name), "server": []byte(server), "config": []byte(`{"bearerToken":"s3cr3t"}`)}}
}

// planOf is a plan ConfigMap of rollout, rendered for parent (as far as the caches read it).
func planOf(rollout, parent string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: contract.PlanConfigMap(rollout), Namespace: testNS,
		Labels:      map[string]string{contract.LabelPlan: contract.MarkerValue, contract.LabelRollout: rollout},
		Annotations: map[string]string{contract.AnnotationParent: parent}}}
}

// drain is the Events the recorder holds.
func drain(r *record.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-r.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}
