package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

// apiServer is an API server that holds one state ConfigMap: it answers a list with it and
// holds a watch open (nothing changes); watched is closed at the first watch.
func apiServer(t *testing.T, cm *corev1.ConfigMap) (url string, watched <-chan struct{}) {
	t.Helper()
	w := make(chan struct{})
	first := true
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("watch") == "true" {
			rw.WriteHeader(http.StatusOK)
			rw.(http.Flusher).Flush()
			if first {
				first = false
				close(w)
			}
			<-r.Context().Done()
			return
		}
		list := corev1.ConfigMapList{TypeMeta: metav1.TypeMeta{Kind: "ConfigMapList", APIVersion: "v1"},
			ListMeta: metav1.ListMeta{ResourceVersion: cm.ResourceVersion}, Items: []corev1.ConfigMap{*cm}}
		if err := json.NewEncoder(rw).Encode(&list); err != nil {
			t.Error(err)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, w
}

// kubeconfig is a kubeconfig file for server.
func kubeconfig(t *testing.T, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
clusters: [{name: test, cluster: {server: "` + server + `"}}]
users: [{name: tester, user: {token: t0ken}}]
contexts: [{name: test, context: {cluster: test, user: tester, namespace: argocd}}]
current-context: test
`
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCtrlCDuringWaitExits130: SIGINT to the real binary while status --wait follows a
// rollout that runs says it was interrupted, not that --timeout passed, and exits 130.
func TestCtrlCDuringWaitExits130(t *testing.T) {
	cm := stateCM(t, "argocd", "web", state.RolloutProgressing, 0, []string{"a"}, []string{"b"})
	cm.ResourceVersion = "7"
	url, watched := apiServer(t, cm)
	cmd := exec.Command(builtBinary(t), "status", "web", "--wait", "--kubeconfig", kubeconfig(t, url))
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-watched:
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("status --wait never watched the state: %s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit %v, want %d; stderr %q", err, exitInterrupted, stderr.String())
	}
	if s := stderr.String(); !strings.Contains(s, "cmp-phase: interrupted: rollout web had not ended") || strings.Contains(s, "--timeout") || stdout.Len() > 0 {
		t.Fatalf("stderr %q, stdout %q", s, stdout.String())
	}
}
