package framework

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StartNotifications runs Argo CD's real argocd-notifications controller (the multi-call
// binary under that name) over the stack's Applications, with data as its
// argocd-notifications-cm (triggers, templates, services) and an empty Secret.
func (e *Env) StartNotifications(ctx context.Context, data map[string]string) (*Proc, error) {
	cms := e.Kube.CoreV1().ConfigMaps(ArgoNamespace)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "argocd-notifications-cm", Namespace: ArgoNamespace,
		Labels: map[string]string{"app.kubernetes.io/part-of": "argocd"}}, Data: data}
	if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); apierrors.IsAlreadyExists(err) {
		_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
		if err != nil {
			return nil, fmt.Errorf("argocd-notifications-cm: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("argocd-notifications-cm: %w", err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "argocd-notifications-secret", Namespace: ArgoNamespace,
		Labels: map[string]string{"app.kubernetes.io/part-of": "argocd"}}}
	if _, err := e.Kube.CoreV1().Secrets(ArgoNamespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("argocd-notifications-secret: %w", err)
	}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	p, err := e.Start(ProcSpec{Name: "argocd-notifications", Path: e.Tools.ArgoCD, Args: []string{
		"--argocd-repo-server", e.repoAddr, "--argocd-repo-server-plaintext",
		"--metrics-port", strconv.Itoa(port), "--loglevel", "debug",
	}, Env: e.argoEnv("argocd-notifications")})
	if err != nil {
		return nil, err
	}
	return p, WaitTCP(ctx, p, "127.0.0.1:"+strconv.Itoa(port))
}
