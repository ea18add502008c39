package cmpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// slowSpec is a spec whose every child is within the template bounds but whose children
// together take far longer than a render may: 3,000 of them, each hashing 8 MiB for its
// name (which even the first render, of the plan alone, computes).
func slowSpec() string {
	var els strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&els, "      - name: c%d\n", i)
	}
	return `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: slow
spec:
  goTemplate: true
  generators:
  - list:
      elements:
` + els.String() + `  template:
    metadata:
      name: '{{ .name }}-{{ repeat 8000000 "x" | sha256sum | trunc 4 }}'
    spec:
      project: default
      source: {repoURL: https://example.com/r.git, path: app, targetRevision: HEAD}
      destination: {server: https://kubernetes.default.svc, namespace: default}
  strategy:
    type: RollingSync
    rollingSync:
      steps:
      - matchExpressions: []
`
}

// TestARenderPastItsTimeoutEndsAndOthersGoOn: a spec that cannot render within
// RenderTimeout fails with its own message once the timeout passes — its executions stop
// at their next check and its work dir is removed — while another parent's render on the
// same sidecar succeeds.
func TestARenderPastItsTimeoutEndsAndOthersGoOn(t *testing.T) {
	root := repo(t)
	if err := os.MkdirAll(filepath.Join(root, "apps", "slow"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "apps", "slow", "appset.yaml"), []byte(slowSpec()), 0o644); err != nil {
		t.Fatal(err)
	}
	client, workDir := startServerWith(t, deployedStore(t, root), Options{StaleWait: time.Second, RenderTimeout: time.Second, Renders: 2})
	slow := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := generate(context.Background(), client, root, "apps/slow", nil)
		slow <- err
	}()
	resp, err := generate(context.Background(), client, root, "apps/demo", []string{contract.PluginEnvPhaseGen + "=5"})
	if err != nil || len(resp.Manifests) != 7 {
		t.Fatalf("the other parent's render beside the slow one: %v", err)
	}
	err = <-slow
	st, _ := status.FromError(err)
	if st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "the render was cancelled") {
		t.Fatalf("the slow render: %v, want its cancellation", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Fatalf("the slow render ended after %s, its timeout is 1s", d)
	}
	waitEmpty(t, workDir, 10*time.Second)
}
