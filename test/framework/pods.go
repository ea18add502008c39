package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// KwokNode is the fake node Job pods run on.
const KwokNode = "kwok-node-0"

// KwokFailAnnotation on a pod template makes its pods fail; without it a Job's pod
// succeeds about a second after it runs.
const KwokFailAnnotation = "kwok.cmp-phase.test/fail"

// jobPodStages end a Job's pod, as its containers would: Succeeded, or Failed when the pod
// carries KwokFailAnnotation "true". kwok's own stages (copied into the tools cache by
// hack/build-tools.sh) make the node Ready, the pod Running, and a deleted pod gone.
var jobPodStages = endStage("job-pod-succeeds", "NotIn", 0, "Completed", "Succeeded") + "---" +
	endStage("job-pod-fails", "In", 1, "Error", "Failed")

// endStage is a kwok Stage that ends a running Job pod a second after it runs: those whose
// KwokFailAnnotation is (op In) or is not (op NotIn) "true".
func endStage(name, op string, exit int, reason, phase string) string {
	return fmt.Sprintf(`
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: %s
spec:
  resourceRef: {apiGroup: v1, kind: Pod}
  selector:
    matchExpressions:
    - {key: .metadata.deletionTimestamp, operator: DoesNotExist}
    - {key: .status.phase, operator: In, values: [Running]}
    - {key: '.metadata.ownerReferences.[].kind', operator: In, values: [Job]}
    - {key: '.metadata.annotations["%s"]', operator: %s, values: ["true"]}
  delay: {durationMilliseconds: 1000}
  next:
    statusTemplate: |
      {{ $now := Now }}
      containerStatuses:
      {{ range .spec.containers }}
      - image: {{ .image | Quote }}
        name: {{ .name | Quote }}
        ready: false
        restartCount: 0
        state: {terminated: {exitCode: %d, reason: %s, startedAt: {{ $now | Quote }}, finishedAt: {{ $now | Quote }}}}
      {{ end }}
      phase: %s
`, name, KwokFailAnnotation, op, exit, reason, phase)
}

// Pods makes the stack run pods, once for the whole run: kube-scheduler, and kwok
// managing one fake node (the Job controller already runs in kube-controller-manager).
// Only tests that run Jobs call it, so the others do not pay for it.
func (e *Env) Pods(t testing.TB) {
	t.Helper()
	e.pods.Do(func() { e.podsErr = e.startPods() })
	if e.podsErr != nil {
		t.Fatalf("start pods: %v", e.podsErr)
	}
}

func (e *Env) startPods() error {
	if _, err := e.Start(ProcSpec{Name: "kube-scheduler", Path: e.Tools.KubeScheduler, Args: []string{
		"--kubeconfig", e.Kubeconfig, "--leader-elect=false", "--secure-port=0",
	}}); err != nil {
		return err
	}
	config, err := e.kwokConfig()
	if err != nil {
		return err
	}
	port, err := FreePort()
	if err != nil {
		return err
	}
	if _, err := e.Start(ProcSpec{Name: "kwok", Path: e.Tools.Kwok, Args: []string{
		"--kubeconfig", e.Kubeconfig, "--config", config,
		"--manage-all-nodes=false", "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		"--server-address", "127.0.0.1:" + strconv.Itoa(port),
	}}); err != nil {
		return err
	}
	return e.kwokNode()
}

// kwokConfig writes kwok's stages and ours into one config file.
func (e *Env) kwokConfig() (string, error) {
	docs := jobPodStages
	for _, f := range []string{"node-initialize.yaml", "pod-ready.yaml", "pod-delete.yaml"} {
		b, err := os.ReadFile(filepath.Join(e.Tools.KwokStages, f))
		if err != nil {
			return "", fmt.Errorf("kwok stages: %w", err)
		}
		docs += "\n---\n" + string(b)
	}
	path := filepath.Join(e.Dir, "kwok.yaml")
	if err := os.WriteFile(path, []byte(docs), 0o644); err != nil {
		return "", fmt.Errorf("kwok config: %w", err)
	}
	return path, nil
}

// kwokNode registers the fake node, waits until kwok made it Ready, and lifts the
// not-ready taint the API server put on it at creation: the node lifecycle controller would,
// but it also expects kubelet heartbeats, which kwok's fast stages do not send.
func (e *Env) kwokNode() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: KwokNode,
		Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
		Labels:      map[string]string{"kubernetes.io/hostname": KwokNode, "type": "kwok"}}}
	if _, err := e.Kube.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create node %s: %w", KwokNode, err)
	}
	for {
		n, err := e.Kube.CoreV1().Nodes().Get(ctx, KwokNode, metav1.GetOptions{})
		if err == nil {
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
					return e.untaint(ctx)
				}
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("node %s not Ready: %w", KwokNode, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func (e *Env) untaint(ctx context.Context) error {
	patch := []byte(`{"spec":{"taints":null}}`)
	if _, err := e.Kube.CoreV1().Nodes().Patch(ctx, KwokNode, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("lift the not-ready taint of %s: %w", KwokNode, err)
	}
	return nil
}
