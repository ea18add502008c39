package framework

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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

// KwokLogContainer is the container name whose log kwok serves, in every pod on its node,
// from the file Env.KwokLog writes (kwok's ClusterLogs): `kubectl logs` of such a container
// reads that file through the API server and kwok's kubelet endpoint. Other containers
// have no log (the API server answers an error). One file for the whole run: one test at a
// time may print through it.
const KwokLogContainer = "prints-log"

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
	// The node's address and kubelet port are kwok's server (its node-initialize stage
	// writes them into the node's status), so the API server reaches it for pod logs; kwok
	// serves TLS with its own certificate, which the API server does not verify (no
	// --kubelet-certificate-authority). The address is the Hostname (the API server's first
	// preferred type) and the InternalIP.
	if _, err := e.Start(ProcSpec{Name: "kwok", Path: e.Tools.Kwok, Args: []string{
		"--kubeconfig", e.Kubeconfig, "--config", config,
		"--manage-all-nodes=false", "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
		"--server-address", "127.0.0.1:" + strconv.Itoa(port),
		"--node-ip", "127.0.0.1", "--node-name", "127.0.0.1", "--node-port", strconv.Itoa(port),
	}}); err != nil {
		return err
	}
	return e.kwokNode()
}

// kwokLogFile is the file kwok serves KwokLogContainer's log from.
func (e *Env) kwokLogFile() string { return filepath.Join(e.Dir, "kwok-"+KwokLogContainer+".log") }

// KwokLog makes KwokLogContainer's log, in every pod on kwok's node, these lines (as a
// container runtime writes them, one CRI log entry per line on stdout). Write it before
// the pod's log is read.
func (e *Env) KwokLog(t testing.TB, lines ...string) {
	t.Helper()
	var b strings.Builder
	now := time.Now().UTC()
	for i, l := range lines {
		fmt.Fprintf(&b, "%s stdout F %s\n", now.Add(time.Duration(i)*time.Millisecond).Format(time.RFC3339Nano), l)
	}
	tmp := e.kwokLogFile() + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, e.kwokLogFile()); err != nil {
		t.Fatal(err)
	}
}

// kwokLogs is a kwok ClusterLogs serving KwokLogContainer's log from file.
func kwokLogs(file string) string {
	return fmt.Sprintf(`
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: %s
spec:
  logs:
  - containers: [%s]
    logsFile: %q
`, KwokLogContainer, KwokLogContainer, file)
}

// kwokConfig writes kwok's stages and ours, and the ClusterLogs, into one config file.
func (e *Env) kwokConfig() (string, error) {
	if err := os.WriteFile(e.kwokLogFile(), nil, 0o644); err != nil {
		return "", fmt.Errorf("kwok log: %w", err)
	}
	docs := jobPodStages + "---" + kwokLogs(e.kwokLogFile())
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
