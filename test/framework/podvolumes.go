package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	authv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// saMountPath is where a service account's token is mounted.
const saMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"

// mount is one bind mount of a container.
type mount struct {
	source, target string
	readOnly       bool
}

// volFiles is what a volume holds: files by relative path, and each file's mode and owner.
type volFiles struct {
	files map[string][]byte
	mode  os.FileMode
	uid   int
	gid   int
}

// containerMounts materialises each volume the container mounts, as the kubelet writes it
// (files root-owned, their group the pod's fsGroup, modes as defaultMode or 0644), and the
// service account token the ServiceAccount admission plugin adds to a pod that does not
// opt out.
func (e *Env) containerMounts(ctx context.Context, pod Pod, c corev1.Container, stage string, u user) ([]mount, error) {
	vols := map[string]corev1.Volume{}
	for _, v := range pod.Spec.Volumes {
		vols[v.Name] = v
	}
	mounts := c.VolumeMounts
	if auto := e.autoToken(pod, c); auto != nil {
		vols[auto.Name] = *auto
		mounts = append(mounts, corev1.VolumeMount{Name: auto.Name, MountPath: saMountPath, ReadOnly: true})
	}
	fsGroup := 0
	if sc := pod.Spec.SecurityContext; sc != nil && sc.FSGroup != nil {
		fsGroup = int(*sc.FSGroup)
	}
	var out []mount
	done := map[string]string{}
	for _, vm := range mounts {
		v, ok := vols[vm.Name]
		if !ok {
			return nil, fmt.Errorf("mount %s names no volume of the pod", vm.Name)
		}
		src, ok := done[vm.Name]
		if shared, isShared := pod.Shared[vm.Name]; isShared && v.EmptyDir != nil {
			src, ok = shared, true
		}
		if !ok {
			src = filepath.Join(stage, "volumes", vm.Name)
			if err := e.materialise(ctx, pod, v, src, u, fsGroup); err != nil {
				return nil, fmt.Errorf("volume %s: %w", vm.Name, err)
			}
			done[vm.Name] = src
		}
		if vm.SubPath != "" {
			src = filepath.Join(src, vm.SubPath)
		}
		out = append(out, mount{source: src, target: vm.MountPath, readOnly: vm.ReadOnly})
	}
	return out, nil
}

// autoToken is the projected token volume the ServiceAccount admission plugin adds when
// neither the pod nor its ServiceAccount opts out and nothing is mounted at its path yet.
func (e *Env) autoToken(pod Pod, c corev1.Container) *corev1.Volume {
	if pod.Spec.AutomountServiceAccountToken != nil && !*pod.Spec.AutomountServiceAccountToken {
		return nil
	}
	for _, vm := range c.VolumeMounts {
		if strings.HasPrefix(saMountPath, vm.MountPath) {
			return nil
		}
	}
	sa := pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	if got, err := e.Kube.CoreV1().ServiceAccounts(pod.Namespace).Get(context.Background(), sa, metav1.GetOptions{}); err == nil &&
		got.AutomountServiceAccountToken != nil && !*got.AutomountServiceAccountToken {
		return nil
	}
	return &corev1.Volume{Name: "kube-api-access", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](3607)}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
				FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}}}},
		}}}}
}

func (e *Env) materialise(ctx context.Context, pod Pod, v corev1.Volume, dir string, u user, fsGroup int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var vf volFiles
	var err error
	switch {
	case v.EmptyDir != nil:
		return os.Chmod(dir, 0o777)
	case v.ConfigMap != nil:
		vf.files, err = e.configMapFiles(ctx, pod.Namespace, v.ConfigMap.Name, v.ConfigMap.Items, v.ConfigMap.Optional)
		vf.mode = modeOr(v.ConfigMap.DefaultMode, 0o644)
	case v.Secret != nil:
		vf.files, err = e.secretFiles(ctx, pod.Namespace, v.Secret.SecretName, v.Secret.Items, v.Secret.Optional)
		vf.mode = modeOr(v.Secret.DefaultMode, 0o644)
	case v.Projected != nil:
		vf, err = e.projectedFiles(ctx, pod, v.Projected, u)
	case v.DownwardAPI != nil:
		vf.files, err = downwardFiles(pod, v.DownwardAPI.Items)
		vf.mode = modeOr(v.DownwardAPI.DefaultMode, 0o644)
	default:
		return fmt.Errorf("a kind of volume the harness does not run (hostPath and the like are refused)")
	}
	if err != nil {
		return err
	}
	if vf.gid == 0 {
		vf.gid = fsGroup
	}
	return writeVolume(dir, vf)
}

func modeOr(m *int32, def os.FileMode) os.FileMode {
	if m == nil {
		return def
	}
	return os.FileMode(*m)
}

func writeVolume(dir string, vf volFiles) error {
	for rel, data := range vf.files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, vf.mode); err != nil {
			return err
		}
		if err := os.Chmod(p, vf.mode); err != nil { // not masked by the umask
			return err
		}
		if err := os.Chown(p, vf.uid, vf.gid); err != nil {
			return err
		}
	}
	return nil
}

func (e *Env) configMapFiles(ctx context.Context, ns, name string, items []corev1.KeyToPath, optional *bool) (map[string][]byte, error) {
	cm, err := e.Kube.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) && optional != nil && *optional {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("configMap %s: %w", name, err)
	}
	data := map[string][]byte{}
	for k, v := range cm.Data {
		data[k] = []byte(v)
	}
	return pick(data, items)
}

// secretFiles waits, as a pod would not start before, for a ServiceAccount token Secret
// to be filled by the token controller.
func (e *Env) secretFiles(ctx context.Context, ns, name string, items []corev1.KeyToPath, optional *bool) (map[string][]byte, error) {
	var s *corev1.Secret
	err := Poll(ctx, 200*time.Millisecond, func() (bool, error) {
		var err error
		s, err = e.Kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return s.Type != corev1.SecretTypeServiceAccountToken || len(s.Data[corev1.ServiceAccountTokenKey]) > 0, nil
	})
	if apierrors.IsNotFound(err) && optional != nil && *optional {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("secret %s: %w", name, err)
	}
	return pick(s.Data, items)
}

// pick is the volume's files: every key, or only the items at their paths.
func pick(data map[string][]byte, items []corev1.KeyToPath) (map[string][]byte, error) {
	if len(items) == 0 {
		return data, nil
	}
	out := map[string][]byte{}
	for _, it := range items {
		v, ok := data[it.Key]
		if !ok {
			return nil, fmt.Errorf("no key %s", it.Key)
		}
		out[it.Path] = v
	}
	return out, nil
}

// projectedFiles projects tokens, ConfigMaps, Secrets and the downward API into one volume;
// a token's file belongs to the container's user (mode 0600), as the kubelet does for a pod
// whose containers run as one user.
func (e *Env) projectedFiles(ctx context.Context, pod Pod, p *corev1.ProjectedVolumeSource, u user) (volFiles, error) {
	vf := volFiles{files: map[string][]byte{}, mode: modeOr(p.DefaultMode, 0o644)}
	for _, src := range p.Sources {
		var part map[string][]byte
		var err error
		switch {
		case src.ServiceAccountToken != nil:
			part, err = e.tokenFile(ctx, pod, src.ServiceAccountToken)
			vf.mode, vf.uid, vf.gid = 0o600, u.uid, u.gid
		case src.ConfigMap != nil:
			part, err = e.configMapFiles(ctx, pod.Namespace, src.ConfigMap.Name, src.ConfigMap.Items, src.ConfigMap.Optional)
		case src.Secret != nil:
			part, err = e.secretFiles(ctx, pod.Namespace, src.Secret.Name, src.Secret.Items, src.Secret.Optional)
		case src.DownwardAPI != nil:
			part, err = downwardFiles(pod, src.DownwardAPI.Items)
		}
		if err != nil {
			return vf, err
		}
		for k, v := range part {
			vf.files[k] = v
		}
	}
	return vf, nil
}

func (e *Env) tokenFile(ctx context.Context, pod Pod, t *corev1.ServiceAccountTokenProjection) (map[string][]byte, error) {
	sa := pod.Spec.ServiceAccountName
	if sa == "" {
		sa = "default"
	}
	req := &authv1.TokenRequest{Spec: authv1.TokenRequestSpec{ExpirationSeconds: t.ExpirationSeconds}}
	if t.Audience != "" {
		req.Spec.Audiences = []string{t.Audience}
	}
	tr, err := e.Kube.CoreV1().ServiceAccounts(pod.Namespace).CreateToken(ctx, sa, req, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("token of service account %s: %w", sa, err)
	}
	return map[string][]byte{t.Path: []byte(tr.Status.Token)}, nil
}

func downwardFiles(pod Pod, items []corev1.DownwardAPIVolumeFile) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, it := range items {
		if it.FieldRef == nil {
			return nil, fmt.Errorf("downward API item %s: only fieldRef is provided", it.Path)
		}
		v, err := fieldValue(pod, it.FieldRef.FieldPath)
		if err != nil {
			return nil, err
		}
		out[it.Path] = []byte(v)
	}
	return out, nil
}
