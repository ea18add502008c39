package hooks

import (
	"context"
	"fmt"
	"slices"

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
	if v.AzureFile != nil {
		add(v.AzureFile.SecretName)
	}
	for _, r := range refs {
		if r != nil {
			add(r.Name)
		}
	}
}
