package jobhook

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// checkSecretRefs lets a Job's pod reference only Secrets labelled
// contract.LabelHookSecret=true in ns, so a spec author can never mount Argo CD's own
// Secrets (cluster and repository credentials) into a hook's pod. It reads each Secret's
// labels; its data is neither kept nor told. A Secret it cannot read is an error too.
func checkSecretRefs(ctx context.Context, kube kubernetes.Interface, ns string, pod *corev1.PodSpec) error {
	for _, name := range secretRefs(pod) {
		s, err := kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("the Job references Secret %s/%s, which the agent cannot read to check its %s label (fix: create it with label %s: \"true\"): %w",
				ns, name, contract.LabelHookSecret, contract.LabelHookSecret, err)
		}
		if s.Labels[contract.LabelHookSecret] != "true" {
			return fmt.Errorf("the Job references Secret %s/%s, which is not labelled %s: \"true\" (fix: label it, kubectl label secret -n %s %s %s=true, if job hooks may read it)",
				ns, name, contract.LabelHookSecret, ns, name, contract.LabelHookSecret)
		}
	}
	return nil
}

// secretRefs are the names of every Secret the pod references, sorted, once each: env
// and envFrom of every container, secret and projected volumes, the Secrets of volume
// drivers, and image pull secrets.
func secretRefs(pod *corev1.PodSpec) []string {
	var out []string
	add := func(name string) {
		if name != "" {
			out = append(out, name)
		}
	}
	for _, c := range slices.Concat(pod.InitContainers, pod.Containers) {
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				add(e.ValueFrom.SecretKeyRef.Name)
			}
		}
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil {
				add(e.SecretRef.Name)
			}
		}
	}
	for _, v := range pod.Volumes {
		volumeSecrets(v.VolumeSource, add)
	}
	for _, s := range pod.ImagePullSecrets {
		add(s.Name)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// volumeSecrets adds the Secrets a volume references.
func volumeSecrets(v corev1.VolumeSource, add func(string)) {
	if v.Secret != nil {
		add(v.Secret.SecretName)
	}
	if v.Projected != nil {
		for _, src := range v.Projected.Sources {
			if src.Secret != nil {
				add(src.Secret.Name)
			}
		}
	}
	if v.AzureFile != nil {
		add(v.AzureFile.SecretName)
	}
	for _, r := range driverSecretRefs(v) {
		if r != nil {
			add(r.Name)
		}
	}
}

// driverSecretRefs are the references to a Secret of the volume drivers that take one (the
// CSI driver's node publish Secret, the others' secretRef), each nil if the driver names
// none.
func driverSecretRefs(v corev1.VolumeSource) []*corev1.LocalObjectReference {
	refs := []*corev1.LocalObjectReference{}
	if v.CSI != nil {
		refs = append(refs, v.CSI.NodePublishSecretRef)
	}
	if v.FlexVolume != nil {
		refs = append(refs, v.FlexVolume.SecretRef)
	}
	if v.ISCSI != nil {
		refs = append(refs, v.ISCSI.SecretRef)
	}
	if v.RBD != nil {
		refs = append(refs, v.RBD.SecretRef)
	}
	if v.CephFS != nil {
		refs = append(refs, v.CephFS.SecretRef)
	}
	if v.Cinder != nil {
		refs = append(refs, v.Cinder.SecretRef)
	}
	if v.ScaleIO != nil {
		refs = append(refs, v.ScaleIO.SecretRef)
	}
	if v.StorageOS != nil {
		refs = append(refs, v.StorageOS.SecretRef)
	}
	return refs
}

// secretValues are the values the pod may have read from Secrets, to redact from its log:
// of a Secret referenced only by env secretKeyRef the keys named, of any other (envFrom,
// volumes, image pull secrets) every key. They are read from the pod's namespace for this
// one redaction, never kept or logged. A Secret that cannot be read, or that changed after
// the pod was made (its values then may not be the ones the pod printed), is an error: the
// log is withheld.
func secretValues(ctx context.Context, kube kubernetes.Interface, pod *corev1.Pod) ([][]byte, error) {
	var values [][]byte
	for name, keys := range secretKeys(&pod.Spec) {
		s, err := kube.CoreV1().Secrets(pod.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("Secret %s, which the pod references, could not be read to redact the log: %s", name, shortErr(ctx, err))
		}
		if changedSince(s, pod.CreationTimestamp.Time) {
			return nil, fmt.Errorf("Secret %s, which the pod references, changed after the pod started", name)
		}
		for k, v := range s.Data {
			if keys == nil || slices.Contains(keys, k) {
				values = append(values, v)
			}
		}
		for k, v := range s.StringData {
			if keys == nil || slices.Contains(keys, k) {
				values = append(values, []byte(v))
			}
		}
	}
	return values, nil
}

// secretKeys maps each Secret the pod references to the keys it reads: those of its env
// secretKeyRefs, or nil (every key) when it is referenced any other way.
func secretKeys(pod *corev1.PodSpec) map[string][]string {
	whole := &corev1.PodSpec{Volumes: pod.Volumes, ImagePullSecrets: pod.ImagePullSecrets}
	keys := map[string][]string{}
	for _, c := range slices.Concat(pod.InitContainers, pod.Containers) {
		whole.Containers = append(whole.Containers, corev1.Container{EnvFrom: c.EnvFrom})
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name != "" {
				ref := e.ValueFrom.SecretKeyRef
				keys[ref.Name] = append(keys[ref.Name], ref.Key)
			}
		}
	}
	for _, name := range secretRefs(whole) {
		keys[name] = nil
	}
	return keys
}

// changedSince reports whether a manager wrote s after t (by its managed fields; a Secret
// without them cannot tell and counts as unchanged).
func changedSince(s *corev1.Secret, t time.Time) bool {
	return slices.ContainsFunc(s.ManagedFields, func(f metav1.ManagedFieldsEntry) bool {
		return f.Time != nil && f.Time.After(t)
	})
}
