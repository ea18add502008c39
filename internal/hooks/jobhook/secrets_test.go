package jobhook

import (
	"context"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

func TestSecretRefsOfAPod(t *testing.T) {
	ref := func(n string) corev1.LocalObjectReference { return corev1.LocalObjectReference{Name: n} }
	pod := &corev1.PodSpec{
		InitContainers: []corev1.Container{{EnvFrom: []corev1.EnvFromSource{{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: ref("from")}}, {ConfigMapRef: &corev1.ConfigMapEnvSource{}}}}},
		Containers: []corev1.Container{{Env: []corev1.EnvVar{{Name: "A", Value: "x"},
			{Name: "B", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: ref("env")}}}}}},
		Volumes: []corev1.Volume{
			{VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "vol"}}},
			{VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{Secret: &corev1.SecretProjection{LocalObjectReference: ref("projected")}}, {ConfigMap: &corev1.ConfigMapProjection{}}}}}},
			{VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{NodePublishSecretRef: &corev1.LocalObjectReference{Name: "csi"}}}},
			{VolumeSource: corev1.VolumeSource{AzureFile: &corev1.AzureFileVolumeSource{SecretName: "azure"}}},
			{VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		},
		ImagePullSecrets: []corev1.LocalObjectReference{ref("pull"), ref("env")},
	}
	want := []string{"azure", "csi", "env", "from", "projected", "pull", "vol"}
	if got := secretRefs(pod); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

// TestJobSecretsMustBeLabelled: a Job referencing a Secret not labelled for hooks (or one
// the agent cannot read) is Errored before any Job is made, naming the Secret and the fix,
// and nothing of its data shows.
func TestJobSecretsMustBeLabelled(t *testing.T) {
	for _, tc := range []struct {
		name   string
		secret *corev1.Secret
		want   hooks.Outcome
		msg    string
	}{
		{"labelled", hookSecret("db", "true"), hooks.Succeeded, "Complete"},
		{"unlabelled", hookSecret("db", ""), hooks.Errored, `references Secret argocd/db, which is not labelled cmp-phase.io/hook-secret: "true" (fix: label it, kubectl label secret -n argocd db cmp-phase.io/hook-secret=true`},
		{"labelled false", hookSecret("db", "false"), hooks.Errored, "which is not labelled"},
		{"missing", hookSecret("other", "true"), hooks.Errored, "references Secret argocd/db, which the agent cannot read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeClusters{control: fake.NewSimpleClientset(tc.secret)}
			ending(f.control, batchv1.JobComplete, "")
			res := jobRunner(f).Run(context.Background(), jobCall(BeforeHookCreation))
			if res.Outcome != tc.want || !strings.Contains(res.Message, tc.msg) || strings.Contains(res.Message, "s3cr3t") {
				t.Fatalf("got %+v", res)
			}
			if made := creates(f.control); (made == 1) != (tc.want == hooks.Succeeded) {
				t.Fatalf("%d Jobs made", made)
			}
		})
	}
}
