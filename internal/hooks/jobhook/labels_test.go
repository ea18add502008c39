package jobhook

import (
	"context"
	"maps"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// mustBuildJob is c's Job (its template allowed no labels of its own).
func mustBuildJob(t *testing.T, c hooks.Call, ns, sa string) *batchv1.Job {
	t.Helper()
	job, err := buildJob(c, c.Hook.Block.(*Block), ns, sa, nil)
	if err != nil {
		t.Fatal(err)
	}
	return job
}

// withPodMeta is jobCall's call with its pod template's labels and annotations.
func withPodMeta(labels, annotations map[string]string) hooks.Call {
	c := jobCall(BeforeHookCreation)
	c.Hook.Block.(*Block).Spec.Template.ObjectMeta = metav1.ObjectMeta{Labels: labels, Annotations: annotations}
	return c
}

// ours are the labels the agent puts on jobCall's Job and its pod.
var ours = map[string]string{contract.LabelJobRollout: "guestbook", contract.LabelJobHook: "migrate", contract.LabelJobPlace: "check"}

// TestJobPodLabels: the Job's pod carries the agent's labels and, of the template's, only
// the keys --job-allowed-labels names; a label outside them, or a key Argo CD's Services
// and NetworkPolicies select on (or the agent's own, Kubernetes', Argo CD's) even when
// allowed, is refused: no Job.
func TestJobPodLabels(t *testing.T) {
	for _, tc := range []struct {
		name        string
		labels      map[string]string
		annotations map[string]string
		allowed     []string
		want        map[string]string // the pod's labels; nil: refused
		err         string
	}{
		{"no labels of its own", nil, nil, nil, ours, ""},
		{"an allowed label", map[string]string{"team": "payments"}, nil, []string{"team", "tier"},
			map[string]string{contract.LabelJobRollout: "guestbook", contract.LabelJobHook: "migrate", contract.LabelJobPlace: "check", "team": "payments"}, ""},
		{"a label not allowed", map[string]string{"team": "payments"}, nil, nil, nil,
			"not run: job.spec.template.metadata.labels.team is not in --job-allowed-labels (none allowed) (fix: add team to --job-allowed-labels on the agent"},
		{"one allowed, one not", map[string]string{"team": "payments", "tier": "db"}, nil, []string{"team"}, nil,
			"job.spec.template.metadata.labels.tier is not in --job-allowed-labels (allowed: team)"},
		{"Argo CD's repo-server, even allowed", map[string]string{"app.kubernetes.io/name": "argocd-repo-server"}, nil, []string{"app.kubernetes.io/name"}, nil,
			"job.spec.template.metadata.labels.app.kubernetes.io/name is what Argo CD's Services and NetworkPolicies select its pods by"},
		{"part-of", map[string]string{"app.kubernetes.io/part-of": "argocd"}, nil, nil, nil, "labels.app.kubernetes.io/part-of is what Argo CD's Services"},
		{"component", map[string]string{"app.kubernetes.io/component": "repo-server"}, nil, nil, nil, "labels.app.kubernetes.io/component is what"},
		{"instance", map[string]string{"app.kubernetes.io/instance": "argocd"}, nil, nil, nil, "labels.app.kubernetes.io/instance is what"},
		{"the agent's own", map[string]string{contract.LabelJobRollout: "another"}, nil, []string{contract.LabelJobRollout}, nil,
			"labels.cmp-phase.io/rollout is the agent's own"},
		{"Kubernetes' own", map[string]string{"batch.kubernetes.io/job-name": "x"}, nil, nil, nil, "is Kubernetes' own"},
		{"Argo CD's own", map[string]string{"argocd.argoproj.io/instance": "x"}, nil, nil, nil, "is Argo CD's own"},
		{"an annotation of the agent's", nil, map[string]string{contract.AnnotationJobRun: "1/9"}, nil, nil,
			"job.spec.template.metadata.annotations.cmp-phase.io/hook-run is the agent's own"},
		{"other annotations pass", nil, map[string]string{"kwok.cmp-phase.test/fail": "true"}, nil, ours, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := withPodMeta(tc.labels, tc.annotations)
			job, err := buildJob(c, c.Hook.Block.(*Block), "argocd", "default", tc.allowed)
			if tc.want == nil {
				if job != nil {
					t.Fatalf("built a Job whose pod is labelled %v, annotated %v; want refused: %q", job.Spec.Template.Labels, job.Spec.Template.Annotations, tc.err)
				}
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("%v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := job.Spec.Template.Labels; !maps.Equal(got, tc.want) {
				t.Fatalf("pod labels %v, want %v", got, tc.want)
			}
			if !maps.Equal(job.Labels, ours) {
				t.Fatalf("Job labels %v, want only the agent's", job.Labels)
			}
			if !maps.Equal(job.Spec.Template.Annotations, tc.annotations) {
				t.Fatalf("pod annotations %v", job.Spec.Template.Annotations)
			}
		})
	}
}

// TestJobPodLabelsRun: the runner refuses a label --job-allowed-labels does not name
// before it touches a cluster, and creates the Job with an allowed one on its pod.
func TestJobPodLabelsRun(t *testing.T) {
	f := newFakeClusters()
	c := withPodMeta(map[string]string{"app.kubernetes.io/name": "argocd-repo-server"}, nil)
	res := jobRunner(f).Run(context.Background(), c)
	if res.Outcome != hooks.Errored || !strings.Contains(res.Message, "not run: job.spec.template.metadata.labels.app.kubernetes.io/name is what Argo CD's Services") ||
		len(f.control.Actions()) != 0 {
		t.Fatalf("got %+v after %d API calls", res, len(f.control.Actions()))
	}
	c = withPodMeta(map[string]string{"team": "payments"}, nil)
	if res := jobRunner(f).Run(context.Background(), c); res.Outcome != hooks.Errored ||
		!strings.Contains(res.Message, "not run: job.spec.template.metadata.labels.team is not in --job-allowed-labels (none allowed)") || creates(f.control) != 0 {
		t.Fatalf("got %+v", res)
	}

	ending(f.control, batchv1.JobComplete, "")
	r := hooks.New(hooks.Limits{Caps: spec.Limits{JobLabels: []string{"team"}}, Kinds: []any{testOptions(f)}})
	if res := r.Run(context.Background(), c); res.Outcome != hooks.Succeeded {
		t.Fatalf("got %+v", res)
	}
	job, err := f.control.BatchV1().Jobs("argocd").Get(context.Background(), JobName(c), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := maps.Clone(ours)
	want["team"] = "payments"
	if !maps.Equal(job.Spec.Template.Labels, want) || !maps.Equal(job.Labels, ours) {
		t.Fatalf("pod labels %v, Job labels %v", job.Spec.Template.Labels, job.Labels)
	}
}
