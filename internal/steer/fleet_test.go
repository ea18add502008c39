package steer

import (
	"context"
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// TestStopAllAndResumeAll edit the fleet ConfigMap, creating it the first time; a stop
// without a reason and a resume without a stop are refused, writing nothing.
func TestStopAllAndResumeAll(t *testing.T) {
	ctx := context.Background()
	kc := fake.NewClientset()
	f := Fleet{ConfigMaps: kc.CoreV1(), Namespace: "argocd", By: "alice"}
	var refused *Refused
	if err := f.StopAll(ctx, " "); !errors.As(err, &refused) {
		t.Fatalf("a stop without a reason: %v", err)
	}
	if err := f.ResumeAll(ctx); !errors.As(err, &refused) {
		t.Fatalf("a resume without a stop: %v", err)
	}
	if err := f.StopAll(ctx, "incident 4711"); err != nil {
		t.Fatal(err)
	}
	get := func() map[string]string {
		cm, err := kc.CoreV1().ConfigMaps("argocd").Get(ctx, contract.FleetConfigMap, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return cm.Data
	}
	if d := get(); d[contract.StopAllKey] != "incident 4711" || d[contract.ByKey] != "alice" {
		t.Fatalf("after stop-all: %v", d)
	}
	if err := (Fleet{ConfigMaps: kc.CoreV1(), Namespace: "argocd", By: "bob"}).ResumeAll(ctx); err != nil {
		t.Fatal(err)
	}
	if d := get(); d[contract.ByKey] != "bob" {
		t.Fatalf("after resume-all: %v", d)
	} else if _, on := d[contract.StopAllKey]; on {
		t.Fatalf("the stop is still on: %v", d)
	}
}
