package framework

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// containerEnv is the container's environment as the kubelet builds it: the in-cluster
// API server's address, HOSTNAME, envFrom, then env (later names win), each value with
// $(VAR) of the ones before it expanded.
func (e *Env) containerEnv(ctx context.Context, pod Pod, c corev1.Container) ([]string, error) {
	vars := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := vars[k]; !ok {
			order = append(order, k)
		}
		vars[k] = v
	}
	set("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	set("HOSTNAME", pod.Name)
	set("KUBERNETES_SERVICE_HOST", "127.0.0.1")
	set("KUBERNETES_SERVICE_PORT", strconv.Itoa(e.apiPort))
	for _, from := range c.EnvFrom {
		data, err := e.envSource(ctx, pod.Namespace, from)
		if err != nil {
			return nil, err
		}
		for k, v := range data {
			set(from.Prefix+k, v)
		}
	}
	for _, ev := range c.Env {
		v, err := e.envValue(ctx, pod, c, ev, vars)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", ev.Name, err)
		}
		set(ev.Name, v)
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+vars[k])
	}
	return out, nil
}

func (e *Env) envSource(ctx context.Context, ns string, from corev1.EnvFromSource) (map[string]string, error) {
	switch {
	case from.ConfigMapRef != nil:
		cm, err := e.Kube.CoreV1().ConfigMaps(ns).Get(ctx, from.ConfigMapRef.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) && from.ConfigMapRef.Optional != nil && *from.ConfigMapRef.Optional {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("envFrom configMap %s: %w", from.ConfigMapRef.Name, err)
		}
		return cm.Data, nil
	case from.SecretRef != nil:
		s, err := e.Kube.CoreV1().Secrets(ns).Get(ctx, from.SecretRef.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) && from.SecretRef.Optional != nil && *from.SecretRef.Optional {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("envFrom secret %s: %w", from.SecretRef.Name, err)
		}
		out := map[string]string{}
		for k, v := range s.Data {
			out[k] = string(v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("envFrom names neither a configMap nor a secret")
}

func (e *Env) envValue(ctx context.Context, pod Pod, c corev1.Container, ev corev1.EnvVar, vars map[string]string) (string, error) {
	vf := ev.ValueFrom
	switch {
	case vf == nil:
		return expand(ev.Value, vars), nil
	case vf.FieldRef != nil:
		return fieldValue(pod, vf.FieldRef.FieldPath)
	case vf.ResourceFieldRef != nil:
		return resourceValue(c, vf.ResourceFieldRef)
	case vf.ConfigMapKeyRef != nil:
		r := vf.ConfigMapKeyRef
		cm, err := e.Kube.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, r.Name, metav1.GetOptions{})
		if err == nil {
			if v, ok := cm.Data[r.Key]; ok {
				return v, nil
			}
			err = fmt.Errorf("configMap %s has no key %s", r.Name, r.Key)
		}
		if r.Optional != nil && *r.Optional {
			return "", nil
		}
		return "", err
	case vf.SecretKeyRef != nil:
		r := vf.SecretKeyRef
		s, err := e.Kube.CoreV1().Secrets(pod.Namespace).Get(ctx, r.Name, metav1.GetOptions{})
		if err == nil {
			if v, ok := s.Data[r.Key]; ok {
				return string(v), nil
			}
			err = fmt.Errorf("secret %s has no key %s", r.Name, r.Key)
		}
		if r.Optional != nil && *r.Optional {
			return "", nil
		}
		return "", err
	}
	return "", fmt.Errorf("a valueFrom the harness does not know")
}

func fieldValue(pod Pod, path string) (string, error) {
	switch path {
	case "metadata.name":
		return pod.Name, nil
	case "metadata.namespace":
		return pod.Namespace, nil
	case "spec.serviceAccountName":
		return pod.Spec.ServiceAccountName, nil
	case "spec.nodeName":
		return KwokNode, nil
	case "status.podIP", "status.hostIP":
		return "127.0.0.1", nil
	}
	return "", fmt.Errorf("fieldRef %s: not one the harness provides", path)
}

// resourceValue is limits.* or requests.* of the container, in units of the divisor.
func resourceValue(c corev1.Container, r *corev1.ResourceFieldSelector) (string, error) {
	kind, res, ok := strings.Cut(r.Resource, ".")
	if !ok {
		return "", fmt.Errorf("resourceFieldRef %s", r.Resource)
	}
	list := c.Resources.Limits
	if kind == "requests" {
		list = c.Resources.Requests
	}
	q, ok := list[corev1.ResourceName(res)]
	if !ok {
		return "0", nil
	}
	div := int64(1)
	if !r.Divisor.IsZero() {
		div = r.Divisor.Value()
	}
	return strconv.FormatInt((q.Value()+div-1)/div, 10), nil
}

// expand is Kubernetes' $(VAR) expansion: a name set before it is replaced, $$ is a $, and
// anything else is left as written.
func expand(s string, vars map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
			continue
		case '(':
			if end := strings.IndexByte(s[i+2:], ')'); end >= 0 {
				name := s[i+2 : i+2+end]
				if v, ok := vars[name]; ok {
					b.WriteString(v)
					i += 2 + end
					continue
				}
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// expandAll expands a command line against the container's env.
func expandAll(argv []string, env []string) []string {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = expand(a, vars)
	}
	return out
}
