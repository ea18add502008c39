package framework

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// WaitFor polls cond every 500ms until it holds or timeout passes; then it dumps the
// Applications and component logs and fails the test. cond returns a description of
// what it saw, shown on timeout.
func (e *Env) WaitFor(t testing.TB, timeout time.Duration, what string, cond func(ctx context.Context) (bool, string)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	last := ""
	for {
		ok, seen := cond(ctx)
		if ok {
			return
		}
		last = seen
		select {
		case <-ctx.Done():
			e.Dump(t)
			t.Fatalf("timed out after %s waiting for %s; last seen: %s", timeout, what, last)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// App gets an Application from the argocd namespace.
func (e *Env) App(ctx context.Context, name string) (*v1alpha1.Application, error) {
	return e.Argo.ArgoprojV1alpha1().Applications(ArgoNamespace).Get(ctx, name, metav1.GetOptions{})
}

// AppSyncedHealthy says whether the Application is Synced and Healthy, and what it is.
func AppSyncedHealthy(a *v1alpha1.Application) (bool, string) {
	s := fmt.Sprintf("%s sync=%s health=%s", a.Name, a.Status.Sync.Status, a.Status.Health.Status)
	for _, c := range a.Status.Conditions {
		s += fmt.Sprintf(" condition=%s:%q", c.Type, c.Message)
	}
	return a.Status.Sync.Status == v1alpha1.SyncStatusCodeSynced && a.Status.Health.Status == "Healthy", s
}

// Refresh asks the controller to refresh an Application now (normal or hard).
func (e *Env) Refresh(ctx context.Context, name string, hard bool) error {
	kind := "normal"
	if hard {
		kind = "hard"
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, contract.AnnotationRefresh, kind)
	_, err := e.Argo.ArgoprojV1alpha1().Applications(ArgoNamespace).Patch(ctx, name, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{})
	if err != nil {
		return fmt.Errorf("refresh %s: %w", name, err)
	}
	return nil
}

// Dump writes the Applications and the tail of every component log to the test log.
func (e *Env) Dump(t testing.TB) {
	t.Helper()
	var b strings.Builder
	e.DumpApps(&b)
	e.DumpLogs(&b, 6000)
	t.Log(b.String())
}

// DumpApps writes every Application (spec and status) as YAML.
func (e *Env) DumpApps(w io.Writer) {
	if e.Argo == nil {
		return
	}
	list, err := e.Argo.ArgoprojV1alpha1().Applications(ArgoNamespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		fmt.Fprintf(w, "list applications: %v\n", err)
		return
	}
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	for _, a := range list.Items {
		a.ManagedFields = nil
		b, _ := yaml.Marshal(a)
		fmt.Fprintf(w, "---- Application %s\n%s\n", a.Name, b)
	}
}

// DumpLogs writes the last n bytes of each component's log.
func (e *Env) DumpLogs(w io.Writer, n int64) {
	for _, p := range e.Procs() {
		fmt.Fprintf(w, "---- log of %s (pid %d, exited=%v)\n%s\n", p.Name, p.PID(), p.Exited(), p.Tail(n))
	}
}
