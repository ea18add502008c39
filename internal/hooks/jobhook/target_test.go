package jobhook

import (
	"context"
	"errors"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// clusterCall is jobCall run per cluster: for cluster prod-1, whose child deploys into
// namespace guestbook under project apps.
func clusterCall(policy string) hooks.Call {
	c := jobCall(policy)
	c.Cluster, c.Server = "guestbook-prod-1", "https://prod-1"
	c.IdempotencyKey += "/guestbook-prod-1"
	c.Target = &hooks.Target{Cluster: "prod-1", Server: "https://prod-1", Project: "apps", Namespace: "guestbook"}
	return c
}

// withRemote adds cluster prod-1, holding the labelled Secret db in namespace ns.
func withRemote(f *fakeClusters, ns string) *fake.Clientset {
	s := hookSecret("db", "true")
	s.Namespace = ns
	cs := fake.NewSimpleClientset(s)
	f.remote = map[string]*fake.Clientset{"prod-1": cs}
	return cs
}

// TestJobPerClusterRunsInItsCluster: a per-cluster run's Job is made in its cluster, in the
// child's destination namespace (job.namespace wins), after JobClients.Cluster was asked
// with the child's project; the control cluster is not touched, and the Job to delete
// names its cluster so its Clean deletes it there.
func TestJobPerClusterRunsInItsCluster(t *testing.T) {
	for _, tc := range []struct{ name, jobNS, wantNS string }{
		{"destination namespace", "", "guestbook"},
		{"job.namespace", "smoke", "smoke"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeClusters()
			remote := withRemote(f, tc.wantNS)
			ending(remote, batchv1.JobComplete, "")
			c := clusterCall(HookSucceeded)
			withPod(remote, tc.wantNS, JobName(c), "smoke ok in prod-1\n")
			c.Hook.Block.(*Block).Namespace = tc.jobNS
			r := jobRunner(f)
			res := r.Run(context.Background(), c)
			if res.Outcome != hooks.Succeeded || !strings.Contains(res.Message, "Job "+tc.wantNS+"/guestbook-migrate-") || !strings.Contains(res.Message, "in cluster prod-1") ||
				!strings.Contains(res.Message, "last lines of its pod's log: smoke ok in prod-1") {
				t.Fatalf("got %+v", res)
			}
			want := hooks.Target{Cluster: "prod-1", Server: "https://prod-1", Project: "apps", Namespace: tc.wantNS}
			if len(f.asked) != 1 || f.asked[0] != want || len(f.control.Actions()) != 0 || creates(remote) != 1 {
				t.Fatalf("asked %+v, control actions %d, remote creates %d", f.asked, len(f.control.Actions()), creates(remote))
			}
			job, err := remote.BatchV1().Jobs(tc.wantNS).Get(context.Background(), JobName(c), metav1.GetOptions{})
			if err != nil || job.Annotations[contract.AnnotationJobKey] != c.IdempotencyKey {
				t.Fatalf("job %v %v", job, err)
			}
			if ref, ok := res.Cleanup.(*JobRef); !ok || ref.Target == nil || *ref.Target != want {
				t.Fatalf("cleanup %+v", res.Cleanup)
			}
			if err := res.Cleanup.Clean(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			if _, err := remote.BatchV1().Jobs(tc.wantNS).Get(context.Background(), job.Name, metav1.GetOptions{}); err == nil {
				t.Fatal("Clean left the Job in its cluster")
			}
		})
	}
}

// TestJobPerClusterErrors: anything that keeps a per-cluster Job from its cluster is
// Errored before a Job is made: a refused cluster (project, credentials), no namespace, a
// templated namespace that is no name, an unlabelled Secret in that cluster.
func TestJobPerClusterErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*hooks.Call, *fakeClusters)
		want  string
		asked int
	}{
		{"refused", func(_ *hooks.Call, f *fakeClusters) {
			f.refuse = errors.New(`AppProject "apps" does not permit cluster prod-1`)
		}, `AppProject "apps" does not permit cluster prod-1`, 1},
		{"no namespace", func(c *hooks.Call, _ *fakeClusters) { c.Target.Namespace = "" }, "child guestbook-prod-1 has no destination namespace for its Job (fix: set job.namespace)", 0},
		{"bad namespace", func(c *hooks.Call, _ *fakeClusters) { c.Hook.Block.(*Block).Namespace = "Prod_1" }, `job.namespace "Prod_1" for cluster prod-1 is not a namespace name`, 0},
		{"unlabelled secret", func(_ *hooks.Call, f *fakeClusters) {
			s := hookSecret("db", "")
			s.Namespace = "guestbook"
			f.remote["prod-1"] = fake.NewSimpleClientset(s)
		}, `in cluster prod-1: the Job references Secret guestbook/db, which is not labelled`, 1},
		{"create refused", func(_ *hooks.Call, f *fakeClusters) {
			f.remote["prod-1"].PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, errors.New("jobs.batch is forbidden")
			})
		}, `in cluster prod-1: creating Job guestbook/guestbook-migrate-`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeClusters()
			withRemote(f, "guestbook")
			c := clusterCall("")
			h := *c.Hook.Block.(*Block)
			c.Hook.Block = &h
			tc.edit(&c, f)
			res := jobRunner(f).Run(context.Background(), c)
			if res.Outcome != hooks.Errored || !strings.Contains(res.Message, tc.want) || len(f.asked) != tc.asked {
				t.Fatalf("got %+v, asked %d", res, len(f.asked))
			}
			for _, cs := range []*fake.Clientset{f.remote["prod-1"], f.control} {
				if jobs, _ := cs.BatchV1().Jobs("").List(context.Background(), metav1.ListOptions{}); len(jobs.Items) != 0 {
					t.Fatalf("a Job was made: %v", jobs.Items)
				}
			}
		})
	}
}

// TestJobPerClusterNamesDiffer: each cluster's run of one hook gets its own Job name (the
// ledger key holds the cluster).
func TestJobPerClusterNamesDiffer(t *testing.T) {
	a, b := clusterCall(""), clusterCall("")
	b.IdempotencyKey = strings.Replace(b.IdempotencyKey, "prod-1", "prod-2", 1)
	if JobName(a) == JobName(b) || JobName(a) == JobName(jobCall("")) {
		t.Fatalf("names %s %s", JobName(a), JobName(b))
	}
}

// TestJobNamespaceFlag: --job-namespace is where a per-phase run's Job goes when its
// job.namespace is empty (job.namespace still wins; unset: the agent's namespace), and the
// Secrets it references are looked up there; a per-cluster run keeps the child's
// destination namespace.
func TestJobNamespaceFlag(t *testing.T) {
	for _, tc := range []struct{ name, flag, jobNS, wantNS string }{
		{"unset: the agent's", "", "", "argocd"},
		{"--job-namespace", "cmp-phase-jobs", "", "cmp-phase-jobs"},
		{"job.namespace wins", "cmp-phase-jobs", "migrations", "migrations"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeClusters()
			s := hookSecret("db", "true")
			s.Namespace = tc.wantNS
			_ = f.control.Tracker().Add(s)
			ending(f.control, batchv1.JobComplete, "")
			c := jobCall(BeforeHookCreation)
			c.Hook.Block.(*Block).Namespace = tc.jobNS
			o := testOptions(f)
			o.Namespace = tc.flag
			res := hooks.New(hooks.Limits{Kinds: []any{o}}).Run(context.Background(), c)
			if res.Outcome != hooks.Succeeded || !strings.Contains(res.Message, "Job "+tc.wantNS+"/") {
				t.Fatalf("got %+v", res)
			}
			if _, err := f.control.BatchV1().Jobs(tc.wantNS).Get(context.Background(), JobName(c), metav1.GetOptions{}); err != nil {
				t.Fatalf("no Job in %s: %v", tc.wantNS, err)
			}
		})
	}
	t.Run("per cluster", func(t *testing.T) {
		f := newFakeClusters()
		remote := withRemote(f, "guestbook")
		ending(remote, batchv1.JobComplete, "")
		o := testOptions(f)
		o.Namespace = "cmp-phase-jobs"
		res := hooks.New(hooks.Limits{Kinds: []any{o}}).Run(context.Background(), clusterCall(HookSucceeded))
		if res.Outcome != hooks.Succeeded || !strings.Contains(res.Message, "Job guestbook/") || len(f.control.Actions()) != 0 {
			t.Fatalf("got %+v, control actions %v", res, f.control.Actions())
		}
	})
}
