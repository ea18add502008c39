package jobhook

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// fakeClusters are the control cluster, a client-go fake holding the labelled Secret db,
// and the clusters per-cluster runs reach (by name; see jobtarget_test.go).
type fakeClusters struct {
	control *fake.Clientset
	remote  map[string]*fake.Clientset
	asked   []hooks.Target // every Cluster call
	reads   [][]objectRef  // what each Cluster call was asked to permit besides the Job
	refuse  error          // what Cluster answers, when set
}

func (f *fakeClusters) Control() (kubernetes.Interface, string) { return f.control, "argocd" }

func (f *fakeClusters) Cluster(_ context.Context, t hooks.Target, reads ...objectRef) (kubernetes.Interface, error) {
	f.asked = append(f.asked, t)
	f.reads = append(f.reads, reads)
	if f.refuse != nil {
		return nil, f.refuse
	}
	if cs, ok := f.remote[t.Cluster]; ok {
		return cs, nil
	}
	return nil, errors.New("no cluster " + t.Cluster)
}

func newFakeClusters() *fakeClusters {
	return &fakeClusters{control: fake.NewSimpleClientset(hookSecret("db", "true"))}
}

func hookSecret(name, label string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "argocd"}, Data: map[string][]byte{"password": []byte("s3cr3t-value")}}
	if label != "" {
		s.Labels = map[string]string{contract.LabelHookSecret: label}
	}
	return s
}

// ending makes every Job created in cs end with condition cond (reason) at once.
func ending(cs *fake.Clientset, cond batchv1.JobConditionType, reason string) {
	cs.PrependReactor("create", "jobs", func(a k8stesting.Action) (bool, runtime.Object, error) {
		job := a.(k8stesting.CreateAction).GetObject().(*batchv1.Job)
		job.Status.Conditions = append(job.Status.Conditions, batchv1.JobCondition{Type: cond, Status: corev1.ConditionTrue, Reason: reason, Message: "said so"})
		return false, nil, nil
	})
}

// withPod gives the Job named job in namespace ns a pod (as the job controller would) once
// it is created, whose container prints log.
func withPod(cs *fake.Clientset, ns, job, log string) {
	cs.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		pod := jobPod(job, "", job+"-x", "c", 100)
		pod.Namespace = ns
		return false, nil, cs.Tracker().Add(pod)
	})
	var asked []corev1.PodLogOptions
	logs(cs, map[string]string{"c": log}, &asked)
}

func jobCall(policy string) hooks.Call {
	return hooks.Call{
		Rollout: "guestbook", Namespace: "argocd", Phase: "canary", Revision: "r1", Place: "check",
		IdempotencyKey: "guestbook/r1/canary/check/migrate", Started: time.Unix(100, 0), Attempt: 1,
		Hook: spec.Hook{Name: "migrate", Type: "job", Timeout: time.Second, Block: &Block{HookDeletePolicy: policy, Spec: batchv1.JobSpec{
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox", Env: []corev1.EnvVar{
				{Name: "PGPASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "password"}}},
			}}}}},
		}}},
	}
}

// testOptions are the job options of a runner reaching f's clusters, polling fast.
func testOptions(f *fakeClusters) *Options { return &Options{Poll: 5 * time.Millisecond, clients: f} }

func jobRunner(f *fakeClusters) *hooks.Runner {
	return hooks.New(hooks.Limits{Kinds: []any{testOptions(f)}})
}

func creates(cs *fake.Clientset) int {
	n := 0
	for _, a := range cs.Actions() {
		if a.GetVerb() == "create" && a.GetResource().Resource == "jobs" {
			n++
		}
	}
	return n
}

func TestJobOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cond    batchv1.JobConditionType
		reason  string
		want    hooks.Outcome
		message string
	}{
		{"complete", batchv1.JobComplete, "", hooks.Succeeded, "Job argocd/guestbook-migrate-"},
		{"deadline", batchv1.JobFailed, "DeadlineExceeded", hooks.Failed, "Failed (DeadlineExceeded: said so)"},
		{"backoff", batchv1.JobFailed, "BackoffLimitExceeded", hooks.Failed, "Failed (BackoffLimitExceeded: said so)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeClusters()
			ending(f.control, tc.cond, tc.reason)
			name := JobName(jobCall(""))
			withPod(f.control, "argocd", name, "migrating\nPGPASSWORD=s3cr3t-value\nthe end\n")
			res := jobRunner(f).Run(context.Background(), jobCall(BeforeHookCreation))
			if res.Outcome != tc.want || !strings.Contains(res.Message, tc.message) || res.Cleanup != nil ||
				!strings.HasSuffix(res.Message, "; last lines of its pod's log: migrating | PGPASSWORD=[redacted] | the end (its pod's log: kubectl logs -n argocd job/"+name+")") ||
				strings.Contains(res.Message, "s3cr3t") {
				t.Fatalf("got %+v", res)
			}
			if creates(f.control) != 1 {
				t.Fatalf("creates %d", creates(f.control))
			}
		})
	}
}

func TestJobIsBuiltForItsRun(t *testing.T) {
	f := newFakeClusters()
	ending(f.control, batchv1.JobComplete, "")
	c := jobCall(BeforeHookCreation)
	jobRunner(f).Run(context.Background(), c)
	job, err := f.control.BatchV1().Jobs("argocd").Get(context.Background(), JobName(c), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if job.Labels[contract.LabelJobRollout] != "guestbook" || job.Labels[contract.LabelJobHook] != "migrate" ||
		job.Spec.Template.Labels[contract.LabelJobHook] != "migrate" || job.Annotations[contract.AnnotationJobRun] != "100000000000/1" ||
		job.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever || job.Spec.Template.Spec.ServiceAccountName != "default" ||
		job.Spec.Template.Spec.AutomountServiceAccountToken == nil || *job.Spec.Template.Spec.AutomountServiceAccountToken {
		t.Fatalf("job %+v", job.ObjectMeta)
	}
	env := map[string]corev1.EnvVar{}
	for _, e := range job.Spec.Template.Spec.Containers[0].Env {
		env[e.Name] = e
	}
	if ref := env["PGPASSWORD"]; ref.Value != "" || ref.ValueFrom.SecretKeyRef.Key != "password" || env[contract.EnvHookType].Value != "check" || env[contract.EnvHookKind].Value != "job" {
		t.Fatalf("env %+v", env)
	}
	for _, a := range f.control.Actions() {
		if a.GetResource().Resource == "secrets" && a.GetVerb() != "get" {
			t.Fatalf("the runner did more than read a Secret's labels: %v", a)
		}
	}
	sa := hooks.New(hooks.Limits{Kinds: []any{&Options{ServiceAccount: "hooks"}}})
	if pod := mustBuildJob(t, c, "argocd", options(sa).ServiceAccount).Spec.Template.Spec; pod.ServiceAccountName != "hooks" {
		t.Fatalf("--job-service-account not used: %q", pod.ServiceAccountName)
	}
}

func TestJobAdoptsItsRunsJob(t *testing.T) {
	f := newFakeClusters()
	c := jobCall(BeforeHookCreation)
	c.Attempt = 1
	job := mustBuildJob(t, c, "argocd", "default")
	job.Annotations[contract.AnnotationJobRun] = "100000000000/3" // a later attempt an earlier agent reached
	job.Status.Conditions = []batchv1.JobCondition{{Type: batchv1.JobComplete, Status: corev1.ConditionTrue}}
	if _, err := f.control.BatchV1().Jobs("argocd").Create(context.Background(), job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.control.ClearActions()
	res := jobRunner(f).Run(context.Background(), c)
	if res.Outcome != hooks.Succeeded || creates(f.control) != 0 {
		t.Fatalf("got %+v, %d creates", res, creates(f.control))
	}
}

// TestJobDeletePolicies: Run deletes nothing after the outcome; it names the Job to
// delete (Cleanup) when the policy says so, and its Clean deletes that one (its UID).
func TestJobDeletePolicies(t *testing.T) {
	for _, tc := range []struct {
		name, policy string
		cond         batchv1.JobConditionType
		earlier      bool // a Job of the same name from an earlier run is there
		want         hooks.Outcome
		cleanup      bool
	}{
		{"succeeded deleted", HookSucceeded, batchv1.JobComplete, false, hooks.Succeeded, true},
		{"succeeded kept on failure", HookSucceeded, batchv1.JobFailed, false, hooks.Failed, false},
		{"failed deleted", HookFailed + "," + BeforeHookCreation, batchv1.JobFailed, false, hooks.Failed, true},
		{"failed kept on success", HookFailed, batchv1.JobComplete, false, hooks.Succeeded, false},
		{"before creation replaces", BeforeHookCreation, batchv1.JobComplete, true, hooks.Succeeded, false},
		{"an earlier run's Job without before creation", HookSucceeded, batchv1.JobComplete, true, hooks.Errored, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeClusters()
			c := jobCall(tc.policy)
			if tc.earlier {
				old := c
				old.Started = time.Unix(50, 0) // the same key, an earlier rollout of the revision
				job := mustBuildJob(t, old, "argocd", "default")
				if _, err := f.control.BatchV1().Jobs("argocd").Create(context.Background(), job, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			ending(f.control, tc.cond, "")
			r := jobRunner(f)
			res := r.Run(context.Background(), c)
			job, err := f.control.BatchV1().Jobs("argocd").Get(context.Background(), JobName(c), metav1.GetOptions{})
			if res.Outcome != tc.want || err != nil || (res.Cleanup != nil) != tc.cleanup {
				t.Fatalf("got %+v; job kept: %v", res, err == nil)
			}
			if tc.earlier && tc.want == hooks.Succeeded && job.Annotations[contract.AnnotationJobRun] != "100000000000/1" {
				t.Fatalf("the earlier run's Job was not replaced: %v", job.Annotations)
			}
			if tc.want == hooks.Errored && !strings.Contains(res.Message, "has no BeforeHookCreation") {
				t.Fatalf("message %q", res.Message)
			}
			if !tc.cleanup {
				return
			}
			if ref, ok := res.Cleanup.(*JobRef); !ok || *ref != (JobRef{Namespace: "argocd", Name: job.Name, UID: job.UID}) {
				t.Fatalf("cleanup %+v", res.Cleanup)
			}
			f.control.ClearActions()
			if err := res.Cleanup.Clean(context.Background(), r); err != nil {
				t.Fatal(err)
			}
			del := f.control.Actions()[0].(k8stesting.DeleteActionImpl)
			if pre := del.DeleteOptions.Preconditions; pre == nil || *pre.UID != job.UID {
				t.Fatalf("delete without the UID precondition: %+v", del.DeleteOptions)
			}
			if _, err := f.control.BatchV1().Jobs("argocd").Get(context.Background(), job.Name, metav1.GetOptions{}); err == nil {
				t.Fatal("Clean left the Job")
			}
			if err := res.Cleanup.Clean(context.Background(), r); err != nil {
				t.Fatalf("a Job already gone: %v", err)
			}
		})
	}
}

func TestJobErrors(t *testing.T) {
	f := newFakeClusters()
	f.control.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("jobs.batch is forbidden")
	})
	if res := jobRunner(f).Run(context.Background(), jobCall("")); res.Outcome != hooks.Errored || !strings.Contains(res.Message, "creating Job argocd/guestbook-migrate-") {
		t.Fatalf("create refused: %+v", res)
	}
	c := jobCall("")
	c.Hook.Timeout = 30 * time.Millisecond // the Job never ends
	if res := jobRunner(newFakeClusters()).Run(context.Background(), c); res.Outcome != hooks.Errored || !strings.Contains(res.Message, "timed out") {
		t.Fatalf("timeout: %+v", res)
	}
	if res := hooks.New(hooks.Limits{}).Run(context.Background(), jobCall("")); res.Outcome != hooks.Errored || !strings.Contains(res.Message, "not enabled") {
		t.Fatalf("no clients: %+v", res)
	}
	f = newFakeClusters()
	c = jobCall("")
	c.Cluster, c.Server = "guestbook-prod-1", "https://prod-1" // per cluster, but the agent named no destination
	if res := jobRunner(f).Run(context.Background(), c); res.Outcome != hooks.Errored || !strings.Contains(res.Message, "without its child's destination") || len(f.control.Actions()) != 0 || len(f.asked) != 0 {
		t.Fatalf("cluster: %+v", res)
	}
}

func TestJobNames(t *testing.T) {
	c := jobCall("")
	long := c
	long.Rollout, long.Hook.Name = strings.Repeat("Very_Long.Rollout", 10), "Hook Name!"
	other := c
	other.Revision = "r2"
	for _, call := range []hooks.Call{c, long, other} {
		name := JobName(call)
		if len(validation.IsDNS1123Label(name)) > 0 || name != JobName(call) {
			t.Errorf("%q: not a stable DNS-1123 label", name)
		}
		for _, v := range mustBuildJob(t, call, "ns", "default").Labels {
			if len(validation.IsValidLabelValue(v)) > 0 {
				t.Errorf("label value %q", v)
			}
		}
	}
	if JobName(c) == JobName(other) || !strings.HasPrefix(JobName(c), "guestbook-migrate-") || len(JobName(long)) != 63 {
		t.Fatalf("names %s %s %s", JobName(c), JobName(other), JobName(long))
	}
}

// TestJobRetryMakesAJobPerAttempt: under failurePolicy retry each attempt replaces the
// earlier attempt's Job (BeforeHookCreation) rather than adopting its failure.
func TestJobRetryMakesAJobPerAttempt(t *testing.T) {
	f := newFakeClusters()
	ending(f.control, batchv1.JobFailed, "BackoffLimitExceeded")
	c := jobCall(BeforeHookCreation)
	c.Hook.FailurePolicy = "retry"
	res := jobRunner(f).RunAttempts(context.Background(), c, hooks.Backoff{Attempts: 3, Initial: time.Millisecond, Max: time.Millisecond, For: 100 * 365 * 24 * time.Hour}, nil) // the call started in 1973
	deletes := 0
	for _, a := range f.control.Actions() {
		if a.GetVerb() == "delete" {
			deletes++
		}
	}
	job, err := f.control.BatchV1().Jobs("argocd").Get(context.Background(), JobName(c), metav1.GetOptions{})
	if res.Outcome != hooks.Failed || creates(f.control) != 3 || deletes != 2 || err != nil || job.Annotations[contract.AnnotationJobRun] != "100000000000/3" {
		t.Fatalf("got %+v, %d creates, %d deletes, %v", res, creates(f.control), deletes, err)
	}
}

// TestAJobWhoseClusterGoesAwayEndsErrored: a cluster that stops answering (its API server
// killed, its credentials revoked) before the Job is made ends the run Errored at once; one
// that goes away once the Job is made is read again until the hook's timeout, then the run
// ends Errored naming the last read's error (no log is read of a Job left running): it
// never hangs, and never reads the silence as an outcome.
func TestAJobWhoseClusterGoesAwayEndsErrored(t *testing.T) {
	for name, err := range map[string]error{
		"killed":  errors.New(`dial tcp 10.0.0.1:6443: connect: connection refused`),
		"revoked": apierrors.NewUnauthorized("Unauthorized"),
	} {
		for _, after := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/after the create %v", name, after), func(t *testing.T) {
				f := newFakeClusters()
				var gone atomic.Bool
				gone.Store(!after)
				f.control.PrependReactor("create", "jobs", func(k8stesting.Action) (bool, runtime.Object, error) {
					gone.Store(true)
					return false, nil, nil
				})
				for _, vr := range [][2]string{{"get", "jobs"}, {"list", "jobs"}, {"get", "pods"}, {"list", "pods"}} {
					f.control.PrependReactor(vr[0], vr[1], func(k8stesting.Action) (bool, runtime.Object, error) {
						if gone.Load() {
							return true, nil, err
						}
						return false, nil, nil
					})
				}
				c := jobCall("")
				c.Hook.Timeout = 200 * time.Millisecond
				res := jobRunner(f).Run(context.Background(), c)
				want := "reading Job argocd/"
				if after {
					want = "no outcome yet, the Job is left running (last read: " + err.Error()
				}
				if res.Outcome != hooks.Errored || !strings.Contains(res.Message, want) {
					t.Fatalf("%+v", res)
				}
			})
		}
	}
}
