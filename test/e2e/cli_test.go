//go:build e2e

package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/rollout"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// TestCLIAgainstTheStack runs the real CLI against the real kube-apiserver and agent:
// status --wait exits 0 on a completed rollout and 1 within seconds of the agent writing
// Stopped; -o jsonpath='{.phase}' and '{.status}' say what the table says; list -A shows
// the rollout in two namespaces (the harness runs Argo CD and the agent in one, so the
// second namespace holds a copy of the state ConfigMap the agent wrote); and the binary
// installed under kubectl's plugin name runs as `kubectl cmp-phase`.
func TestCLIAgainstTheStack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	r := newPhased(t, "cli-wait", "stop")
	defer r.agent("agent-cli-wait", nil).Stop(5 * time.Second)
	r.firstDeployment(ctx, framework.DegradedWorkload(r.name, "v2", "prod-2"))
	if code, out := r.cliCode("status", r.name, "--wait", "--timeout", "1m"); code != 0 || !strings.Contains(out, "STATUS  Completed") {
		t.Fatalf("status --wait on a completed rollout: exit %d, want 0\n%s", code, out)
	}

	// v2 stops at prod (prod-2 Degraded): a CI job waiting on it, started while it runs,
	// fails within seconds.
	r2 := r.commit("v2", nil)
	if err := env.Refresh(ctx, r.name, false); err != nil {
		t.Fatal(err)
	}
	r.waitState("the v2 rollout runs", func(st *state.State) bool {
		return st.Rollout.Revision == r2 && st.Rollout.Status == state.RolloutProgressing
	})
	wait := exec.Command(cmpPhaseBin, "status", r.name, "--wait", "--timeout", "5m", "--kubeconfig", env.Kubeconfig, "-n", framework.ArgoNamespace)
	var waitOut strings.Builder
	wait.Stdout, wait.Stderr = &waitOut, &waitOut
	if err := wait.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan time.Time, 1)
	var waitErr error
	go func() { waitErr = wait.Wait(); exited <- time.Now() }()
	var stoppedAt time.Time
	env.WaitFor(t, 6*time.Minute, "the agent writes Stopped", func(ctx context.Context) (bool, string) {
		st, err := r.state(ctx)
		if err != nil || st.Rollout == nil || st.Rollout.Revision != r2 {
			return false, "not the v2 rollout yet"
		}
		stoppedAt = time.Now()
		return st.Rollout.Status == state.RolloutStopped, string(st.Rollout.Status)
	})
	select {
	case at := <-exited:
		var exit *exec.ExitError
		if !errors.As(waitErr, &exit) || exit.ExitCode() != 1 || !strings.Contains(waitOut.String(), "Stopped") {
			t.Fatalf("status --wait on a stopped rollout: %v, want exit 1\n%s", waitErr, waitOut.String())
		}
		t.Logf("status --wait exited 1 %s after the state said Stopped", max(at.Sub(stoppedAt), 0).Round(10*time.Millisecond))
	case <-time.After(10 * time.Second):
		_ = wait.Process.Kill()
		t.Fatalf("status --wait still waits 10s after the agent wrote Stopped\n%s", waitOut.String())
	}

	r.jsonpathMatchesTheTable(rollout.StatusStopped)
	r.listInTwoNamespaces(ctx)
	kubectlPlugin(t)
}

// jsonpathMatchesTheTable: the table's STATUS line says the status and phase that
// -o jsonpath prints.
func (r *phased) jsonpathMatchesTheTable(want state.RolloutStatus) {
	r.t.Helper()
	table := r.cli("status", r.name)
	status := r.cli("status", r.name, "-o", "jsonpath={.status}")
	phase := r.cli("status", r.name, "-o", "jsonpath={.phase}")
	line := regexp.MustCompile(`(?m)^STATUS  (\S+) of \S+(?: at commit \S+)? at (\S+)$`).FindStringSubmatch(table)
	if status != string(want) || phase == "" || line == nil || line[1] != status || line[2] != phase {
		r.t.Fatalf("jsonpath status %q phase %q; the table says %q:\n%s", status, phase, line, table)
	}
}

// listInTwoNamespaces: list -A shows the rollout in argocd and in a second namespace
// holding a copy of its state ConfigMap, with the same status and phase; list -n of the
// second namespace shows that one only.
func (r *phased) listInTwoNamespaces(ctx context.Context) {
	r.t.Helper()
	const other = "cli-team-b"
	if _, err := env.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: other}}, metav1.CreateOptions{}); err != nil {
		r.t.Fatal(err)
	}
	cm, err := env.Kube.CoreV1().ConfigMaps(framework.ArgoNamespace).Get(ctx, contract.StateConfigMap(r.name), metav1.GetOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	cp := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: cm.Name, Namespace: other, Labels: cm.Labels}, Data: cm.Data, BinaryData: cm.BinaryData}
	if _, err := env.Kube.CoreV1().ConfigMaps(other).Create(ctx, cp, metav1.CreateOptions{}); err != nil {
		r.t.Fatal(err)
	}
	phase := r.cli("status", r.name, "-o", "jsonpath={.phase}")
	out := r.cli("list", "-A")
	row := regexp.MustCompile(`(?m)^(\S+)\s+` + regexp.QuoteMeta(r.name) + `\s+Stopped\s+` + regexp.QuoteMeta(phase) + `\s+\d+/\d+\s+\S+$`)
	rows := row.FindAllStringSubmatch(out, -1)
	if !strings.HasPrefix(out, "NAMESPACE") || len(rows) != 2 || rows[0][1] != framework.ArgoNamespace || rows[1][1] != other {
		r.t.Fatalf("list -A: want %s in %s and %s:\n%s", r.name, framework.ArgoNamespace, other, out)
	}
	// Not r.cli: it names the argocd namespace last, which would win over this one.
	b, err := exec.Command(cmpPhaseBin, "list", "-o", "name", "--kubeconfig", env.Kubeconfig, "--namespace="+other).CombinedOutput()
	if err != nil || string(b) != "rollout/"+r.name+"\n" {
		r.t.Fatalf("list -n %s -o name: %v %q", other, err, b)
	}
}

// kubectlPlugin: kubectl runs the binary installed as kubectl-cmp_phase in $PATH for
// `kubectl cmp-phase`.
func kubectlPlugin(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	if err := os.Symlink(cmpPhaseBin, filepath.Join(dir, "kubectl-cmp_phase")); err != nil {
		t.Fatal(err)
	}
	kubectl := exec.Command(env.Tools.Kubectl, "cmp-phase", "version")
	kubectl.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := kubectl.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "cmp-phase ") {
		t.Fatalf("kubectl cmp-phase version: %v\n%s", err, out)
	}
	kubectl = exec.Command(env.Tools.Kubectl, "cmp-phase", "list", "--kubeconfig", env.Kubeconfig, "-n", framework.ArgoNamespace)
	kubectl.Env = append(os.Environ(), "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err = kubectl.CombinedOutput(); err != nil || !strings.Contains(string(out), "cli-wait") {
		t.Fatalf("kubectl cmp-phase list: %v\n%s", err, out)
	}
	help, err := exec.Command(filepath.Join(dir, "kubectl-cmp_phase"), "list", "--help").Output()
	if err != nil || !strings.Contains(string(help), "kubectl cmp-phase list [flags]") {
		t.Fatalf("kubectl cmp-phase list --help: %v\n%s", err, help)
	}
}
