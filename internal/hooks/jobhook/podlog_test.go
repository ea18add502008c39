package jobhook

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// jobPod is a pod of the Job named job (the job controller's label and owner), made at
// second sec, its first container named container, its env reading Secret db's password.
func jobPod(job string, uid types.UID, name, container string, sec int64) *corev1.Pod {
	yes := true
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "argocd", CreationTimestamp: metav1.Unix(sec, 0),
			Labels:          map[string]string{batchv1.JobNameLabel: job},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job, UID: uid, Controller: &yes}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: container, Env: []corev1.EnvVar{
			{Name: "PGPASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "db"}, Key: "password"}}},
		}}, {Name: "sidecar"}}},
	}
}

// logs answers every pod log read with the log of the container it asks for, recording
// the options asked with.
func logs(cs *fake.Clientset, byContainer map[string]string, asked *[]corev1.PodLogOptions) {
	cs.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "log" {
			return false, nil, nil
		}
		opts := a.(k8stesting.GenericAction).GetValue().(*corev1.PodLogOptions)
		*asked = append(*asked, *opts)
		return true, &runtime.Unknown{Raw: []byte(byContainer[opts.Container])}, nil
	})
}

func TestPodLogNote(t *testing.T) {
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "migrate", Namespace: "argocd", UID: "job-uid"}}
	log := map[string]string{"new": "starting\nPGPASSWORD=s3cr3t-value\nfailed: \x1b[31mboom\x1b[0m\n", "old": "the first attempt\n"}
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("RBAC: no"))
	rotated := hookSecret("db", "true")
	rotated.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl", Time: &metav1.Time{Time: time.Unix(300, 0)}}}
	legacy := jobPod("migrate", "job-uid", "migrate-b", "new", 200)
	legacy.Labels = map[string]string{contract.LabelLegacyJobName: "migrate"}
	short := hookSecret("db", "true")
	short.Data["password"] = []byte("pw")
	for _, tc := range []struct {
		name    string
		objects []runtime.Object
		react   func(*fake.Clientset)
		max     int
		want    string
	}{
		{"the newest pod's tail, redacted", []runtime.Object{hookSecret("db", "true"), jobPod("migrate", "job-uid", "migrate-a", "old", 100), jobPod("migrate", "job-uid", "migrate-b", "new", 200)},
			nil, 1000, "; last lines of its pod's log: starting | PGPASSWORD=[redacted] | failed: boom"},
		{"another Job's pod of the name is not read", []runtime.Object{hookSecret("db", "true"), jobPod("migrate", "old-uid", "migrate-a", "old", 100)},
			nil, 1000, " (pod log unavailable: no pod)"},
		{"no pod", []runtime.Object{hookSecret("db", "true")}, nil, 1000, " (pod log unavailable: no pod)"},
		{"a cluster before 1.27 labels job-name only", []runtime.Object{hookSecret("db", "true"), legacy}, nil, 1000,
			"; last lines of its pod's log: starting | PGPASSWORD=[redacted] | failed: boom"},
		{"pods may not be listed", []runtime.Object{hookSecret("db", "true"), jobPod("migrate", "job-uid", "migrate-b", "new", 200)},
			func(cs *fake.Clientset) {
				cs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, forbidden })
			}, 1000, " (pod log unavailable: forbidden (the agent needs list pods and get pods/log in the Job's namespace))"},
		{"the log may not be read", []runtime.Object{hookSecret("db", "true"), jobPod("migrate", "job-uid", "migrate-b", "new", 200)},
			func(cs *fake.Clientset) {
				cs.PrependReactor("get", "pods", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, forbidden })
			}, 1000, " (pod log unavailable: forbidden"},
		{"a Secret gone", []runtime.Object{jobPod("migrate", "job-uid", "migrate-b", "new", 200)}, nil, 1000,
			" (pod log withheld: Secret db, which the pod references, could not be read to redact the log: not found)"},
		{"a Secret changed after the pod started", []runtime.Object{rotated, jobPod("migrate", "job-uid", "migrate-b", "new", 200)}, nil, 1000,
			" (pod log withheld: Secret db, which the pod references, changed after the pod started)"},
		{"a value too short to redact", []runtime.Object{short, jobPod("migrate", "job-uid", "migrate-b", "new", 200)}, nil, 1000,
			" (pod log withheld: a Secret the pod references has a value too short to redact safely)"},
		{"capped to what the message has left", []runtime.Object{hookSecret("db", "true"), jobPod("migrate", "job-uid", "migrate-b", "new", 200)}, nil, 70,
			"; last lines of its pod's log: …PGPASSWORD=[redacted] | failed: boom"},
		{"no room left", []runtime.Object{hookSecret("db", "true"), jobPod("migrate", "job-uid", "migrate-b", "new", 200)}, nil, podLogMin - 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := fake.NewSimpleClientset(tc.objects...)
			var asked []corev1.PodLogOptions
			logs(cs, log, &asked)
			if tc.react != nil {
				tc.react(cs)
			}
			got := podLogNote(context.Background(), cs, job, tc.max)
			if !strings.HasPrefix(got, tc.want) || len(got) > tc.max || strings.Contains(got, "s3cr3t") || strings.Contains(got, "pw") {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			for _, o := range asked {
				if o.Container != "new" || *o.TailLines != podLogLines || *o.LimitBytes != podLogBytes {
					t.Fatalf("asked %+v", o)
				}
			}
		})
	}
}

// TestPodLogRedactsWholeSecrets: a Secret referenced whole (envFrom, a volume) is redacted
// of every key; one read by secretKeyRef only of the keys read.
func TestPodLogRedactsWholeSecrets(t *testing.T) {
	ref := corev1.LocalObjectReference{Name: "db"}
	keyOnly := corev1.PodSpec{Containers: []corev1.Container{{Env: []corev1.EnvVar{{Name: "P", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: ref, Key: "password"}}}}}}}
	envFrom := corev1.PodSpec{Containers: []corev1.Container{{EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: ref}}}}}}
	volume := corev1.PodSpec{Containers: keyOnly.Containers, Volumes: []corev1.Volume{{VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "db"}}}}}
	secret := hookSecret("db", "true")
	secret.Data["user"] = []byte("admin-user")
	for _, tc := range []struct {
		name string
		spec corev1.PodSpec
		want int // values read
	}{
		{"secretKeyRef", keyOnly, 1}, {"envFrom", envFrom, 2}, {"volume and secretKeyRef", volume, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "argocd"}, Spec: tc.spec}
			values, err := secretValues(context.Background(), fake.NewSimpleClientset(secret), pod)
			if err != nil || len(values) != tc.want {
				t.Fatalf("got %d values, %v", len(values), err)
			}
		})
	}
}
