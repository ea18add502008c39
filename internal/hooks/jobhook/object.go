package jobhook

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// JobName is the name of a call's Job: deterministic from the rollout, the revision and
// the ledger key (so every agent names the same run's Job alike), a DNS-1123 label of at
// most 63 characters: a readable prefix (rollout and hook) and a hash of all three.
func JobName(c hooks.Call) string {
	sum := sha256.Sum256([]byte(c.Rollout + "\x00" + c.Revision + "\x00" + c.IdempotencyKey))
	suffix := hex.EncodeToString(sum[:])[:10]
	prefix := dnsSafe(c.Rollout + "-" + c.Hook.Name)
	if len(prefix) > validation.DNS1123LabelMaxLength-len(suffix)-1 {
		prefix = strings.TrimRight(prefix[:validation.DNS1123LabelMaxLength-len(suffix)-1], "-")
	}
	if prefix == "" {
		return "hook-" + suffix
	}
	return prefix + "-" + suffix
}

var notDNS = regexp.MustCompile(`[^a-z0-9]+`)

// dnsSafe lowercases s and turns every run of other characters into one dash.
func dnsSafe(s string) string {
	return strings.Trim(notDNS.ReplaceAllString(strings.ToLower(s), "-"), "-")
}

// labelValue is s when it is a valid label value, else a DNS-safe prefix and a hash.
func labelValue(s string) string {
	if len(validation.IsValidLabelValue(s)) == 0 {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	prefix := dnsSafe(s)
	if len(prefix) > 52 {
		prefix = strings.TrimRight(prefix[:52], "-")
	}
	return strings.TrimLeft(prefix+"-"+hex.EncodeToString(sum[:])[:10], "-")
}

// runID says which run of its key made a Job: the ledger's start and the attempt.
func runID(c hooks.Call) string {
	return fmt.Sprintf("%d/%d", c.Started.UnixNano(), max(c.Attempt, 1))
}

// sameRun reports whether job was made by the run want is for (this attempt, or a later
// one an earlier agent reached): then it is adopted, never made again.
func sameRun(job, want *batchv1.Job) bool {
	n, m, ok := attempts(job, want)
	return ok && n >= m
}

// earlierAttempt reports whether job was made by an earlier attempt of want's run.
func earlierAttempt(job, want *batchv1.Job) bool {
	n, m, ok := attempts(job, want)
	return ok && n < m
}

// attempts are job's and want's attempts when both are of the same run (key and start).
func attempts(job, want *batchv1.Job) (int, int, bool) {
	if job.Annotations[contract.AnnotationJobKey] != want.Annotations[contract.AnnotationJobKey] {
		return 0, 0, false
	}
	started, attempt, ok := strings.Cut(job.Annotations[contract.AnnotationJobRun], "/")
	wantStarted, wantAttempt, _ := strings.Cut(want.Annotations[contract.AnnotationJobRun], "/")
	n, err := strconv.Atoi(attempt)
	m, _ := strconv.Atoi(wantAttempt)
	return n, m, ok && err == nil && started == wantStarted
}

// buildJob is the Job of call c in namespace ns: the hook's spec, labelled and annotated
// for finding it again, with the injected variables in every container, run as the
// service account sa without its token mounted. Its pod carries the agent's labels and,
// of the template's, only keys in allowed (--job-allowed-labels); a template label not
// allowed, or a reserved label or annotation key (ReservedLabel), is an error and
// no Job: the parser and the limits refused them already, a plan is not trusted.
func buildJob(c hooks.Call, h *Block, ns, sa string, allowed []string) (*batchv1.Job, error) {
	if over := LabelViolations(h, allowed); len(over) > 0 {
		v := over[0]
		return nil, fmt.Errorf("not run: %s %s (fix: %s)", v.Field, v.Msg, v.Fix)
	}
	labels := map[string]string{
		contract.LabelJobRollout: labelValue(c.Rollout), contract.LabelJobHook: labelValue(c.Hook.Name),
		contract.LabelJobPlace: labelValue(c.Place),
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: JobName(c), Namespace: ns, Labels: labels, Annotations: map[string]string{
			contract.AnnotationJobKey: c.IdempotencyKey, contract.AnnotationJobRun: runID(c),
		}},
		Spec: *h.Spec.DeepCopy(),
	}
	tmpl := &job.Spec.Template
	podLabels := maps.Clone(labels)
	for k, v := range h.Spec.Template.Labels {
		if slices.Contains(allowed, k) && ReservedLabel(k) == "" {
			podLabels[k] = v
		}
	}
	tmpl.Labels = podLabels
	if tmpl.Spec.RestartPolicy == "" {
		tmpl.Spec.RestartPolicy = corev1.RestartPolicyNever
	}
	tmpl.Spec.ServiceAccountName, tmpl.Spec.DeprecatedServiceAccount = sa, ""
	tmpl.Spec.AutomountServiceAccountToken = new(bool)
	if err := restricted(&tmpl.Spec); err != nil {
		return nil, err
	}
	env := jobEnv(c)
	for i := range tmpl.Spec.InitContainers {
		tmpl.Spec.InitContainers[i].Env = withEnv(tmpl.Spec.InitContainers[i].Env, env)
	}
	for i := range tmpl.Spec.Containers {
		tmpl.Spec.Containers[i].Env = withEnv(tmpl.Spec.Containers[i].Env, env)
	}
	return job, nil
}

// jobEnv are the injected variables, as command hooks get them.
func jobEnv(c hooks.Call) []corev1.EnvVar {
	env := []corev1.EnvVar{
		{Name: contract.EnvAppSetName, Value: c.Rollout}, {Name: contract.EnvAppSetNamespace, Value: c.Namespace},
		{Name: contract.EnvHookName, Value: c.Hook.Name}, {Name: contract.EnvHookType, Value: c.Place},
		{Name: contract.EnvHookKind, Value: c.Hook.Type}, {Name: contract.EnvPhaseName, Value: c.Phase},
		{Name: contract.EnvRolloutRevision, Value: c.Revision}, {Name: contract.EnvClusterName, Value: c.Cluster},
		{Name: contract.EnvIdempotencyKey, Value: c.IdempotencyKey},
	}
	slices.SortFunc(env, func(a, b corev1.EnvVar) int { return strings.Compare(a.Name, b.Name) })
	return env
}

// withEnv is declared with the injected variables added; ours replace declared ones of the
// same name.
func withEnv(declared, injected []corev1.EnvVar) []corev1.EnvVar {
	out := slices.DeleteFunc(slices.Clone(declared), func(e corev1.EnvVar) bool {
		return slices.ContainsFunc(injected, func(i corev1.EnvVar) bool { return i.Name == e.Name })
	})
	return append(out, injected...)
}

// jobEnded is the Job's outcome once it has one: Complete or Failed, with the reason and
// message of that condition.
func jobEnded(job *batchv1.Job) (done, ok bool, why string) {
	for _, cond := range job.Status.Conditions {
		if cond.Status != corev1.ConditionTrue {
			continue
		}
		switch cond.Type {
		case batchv1.JobComplete:
			return true, true, ""
		case batchv1.JobFailed:
			why = cond.Reason
			if cond.Message != "" {
				why += ": " + cond.Message
			}
			return true, false, why
		}
	}
	return false, false, ""
}
