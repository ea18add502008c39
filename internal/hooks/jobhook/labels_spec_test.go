package jobhook

import (
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// podMeta is a job hook whose pod template has the metadata meta (flow style).
func podMeta(meta string) string {
	return "{name: j, type: job, job: {spec: {template: {metadata: " + meta + ", spec: {containers: [{name: c, image: x}]}}}}}"
}

const checkAt = "spec.yaml:14: spec.generators[0].deploymentStrategy.phases[0].checks[0]."

// TestJobPodReservedLabels: validate (the parser: the sidecar too) refuses, at its field,
// a pod label or annotation key Argo CD's Services and NetworkPolicies select on, or the
// agent's, Kubernetes' or Argo CD's own, and a key that is not a label key.
func TestJobPodReservedLabels(t *testing.T) {
	for meta, want := range map[string]string{
		"{labels: {app.kubernetes.io/name: argocd-repo-server}}":                        "job.spec.template.metadata.labels.app.kubernetes.io/name: is what Argo CD's Services and NetworkPolicies select its pods by (app.kubernetes.io/name: argocd-repo-server) (fix: remove it: a job hook's pod carries the agent's labels and, of its own, only keys --job-allowed-labels names, never cmp-phase.io/, app.kubernetes.io/, Kubernetes' or Argo CD's)",
		"{labels: {app.kubernetes.io/part-of: argocd}}":                                 "job.spec.template.metadata.labels.app.kubernetes.io/part-of: is what Argo CD's Services",
		"{labels: {app.kubernetes.io/component: server}}":                               "labels.app.kubernetes.io/component: is what Argo CD's",
		"{labels: {app.kubernetes.io/instance: argocd}}":                                "labels.app.kubernetes.io/instance: is what Argo CD's",
		"{labels: {cmp-phase.io/rollout: other}}":                                       "labels.cmp-phase.io/rollout: is the agent's own",
		"{labels: {cmp-phase.io/hook-secret: 'true'}}":                                  "labels.cmp-phase.io/hook-secret: is the agent's own",
		"{labels: {batch.kubernetes.io/job-name: x}}":                                   "labels.batch.kubernetes.io/job-name: is Kubernetes' own",
		"{labels: {job-name: x}}":                                                       "labels.job-name: is Kubernetes' own",
		"{labels: {argocd.argoproj.io/instance: x}}":                                    "labels.argocd.argoproj.io/instance: is Argo CD's own",
		"{annotations: {cmp-phase.io/idempotency-key: x}}":                              "job.spec.template.metadata.annotations.cmp-phase.io/idempotency-key: is the agent's own (it labels a Job and its pod cmp-phase.io/rollout, /hook and /hook-place) (fix: remove it: a job hook's pod annotations cannot use",
		"{annotations: {container.apparmor.security.beta.kubernetes.io/c: unconfined}}": "annotations.container.apparmor.security.beta.kubernetes.io/c: is Kubernetes' own",
		"{labels: {'bad key!': x}}":                                                     "labels.bad key!: name part must consist of alphanumeric characters",
	} {
		if !strings.HasPrefix(want, "job.") {
			want = "job.spec.template.metadata." + want
		}
		if _, err := parseWithCheck(podMeta(meta)); err == nil || !strings.Contains(err.Error(), checkAt+want) {
			t.Errorf("%s:\n got %v\nwant %q", meta, err, want)
		}
	}
	for _, meta := range []string{"{labels: {team: payments, example.com/tier: db}}", "{annotations: {kwok.cmp-phase.test/fail: 'true'}}"} {
		if _, err := parseWithCheck(podMeta(meta)); err != nil {
			t.Errorf("%s: %v", meta, err)
		}
	}
}

// TestJobPodLabelsAreALimit: a label --job-allowed-labels does not name is a limit, as a
// timeout is: the parser (and so the sidecar) takes it, validate and the agent refuse it
// with the setting to raise; allowed, it passes.
func TestJobPodLabelsAreALimit(t *testing.T) {
	s, err := parseWithCheck(podMeta("{labels: {team: payments, example.com/tier: db}}"))
	if err != nil {
		t.Fatal(err)
	}
	errs := spec.CheckLimits(s, spec.DefaultLimits())
	want := []string{
		checkAt + "job.spec.template.metadata.labels.example.com/tier: is not in --job-allowed-labels (none allowed) (fix: add example.com/tier to --job-allowed-labels on the agent (and for cmp-phase validate), or remove it",
		checkAt + "job.spec.template.metadata.labels.team: is not in --job-allowed-labels (none allowed)",
	}
	if len(errs) != len(want) {
		t.Fatalf("got %v", errs)
	}
	for i, w := range want {
		if !strings.Contains(errs[i].Error(), w) {
			t.Errorf("got %v\nwant %q", errs[i], w)
		}
	}
	if errs := spec.CheckLimits(s, spec.Limits{JobLabels: []string{"team"}}); len(errs) != 1 || !strings.Contains(errs[0].Error(), "labels.example.com/tier: is not in --job-allowed-labels (allowed: team)") {
		t.Fatalf("got %v", errs)
	}
	if errs := spec.CheckLimits(s, spec.Limits{JobLabels: []string{"team", "example.com/tier"}}); len(errs) != 0 {
		t.Fatalf("allowed, still refused: %v", errs)
	}
	// a plan is not trusted: a reserved key that reached it is a violation whatever is allowed
	j := s.Phases[0].Checks[0].Block.(*Block)
	j.Spec.Template.Labels = map[string]string{"app.kubernetes.io/name": "argocd-repo-server"}
	if v := (spec.Limits{JobLabels: []string{"app.kubernetes.io/name"}}).Violations(s.Phases[0].Checks[0]); len(v) != 1 || !strings.Contains(v[0].Msg, "Argo CD's Services") {
		t.Fatalf("violations %+v", v)
	}
}

// TestJobAllowedLabelsFlag: --job-allowed-labels takes keys comma-separated or repeated,
// and Validate refuses a reserved key or one that is not a label key.
func TestJobAllowedLabelsFlag(t *testing.T) {
	l := spec.DefaultLimits()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	l.BindFlags(fs)
	if err := fs.Parse([]string{"--job-allowed-labels", "team, example.com/tier", "--job-allowed-labels", "owner,team"}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l.JobLabels, []string{"team", "example.com/tier", "owner"}) {
		t.Fatalf("bound %q", l.JobLabels)
	}
	if err := l.Validate(); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{
		"app.kubernetes.io/name": "--job-allowed-labels: app.kubernetes.io/name is what Argo CD's Services and NetworkPolicies select its pods by (app.kubernetes.io/name: argocd-repo-server) (fix: remove it from --job-allowed-labels)",
		"cmp-phase.io/hook":      "cmp-phase.io/hook is the agent's own",
		"bad key!":               `--job-allowed-labels: "bad key!": name part must consist`,
	} {
		if err := (spec.Limits{JobLabels: []string{key}}).OrDefaults().Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", key, err, want)
		}
	}
}
