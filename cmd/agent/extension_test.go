package main

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	argofake "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned/fake"
	"k8s.io/client-go/kubernetes/fake"
)

// TestExtensionFlags: the endpoint is off by default, needs a secret file when on, and
// starts read-only unless --extension-actions.
func TestExtensionFlags(t *testing.T) {
	o, err := parseArgs(nil)
	if err != nil || o.ext.addr != "" || o.ext.actions {
		t.Fatalf("%v %+v", err, o.ext)
	}
	if _, err := parseArgs([]string{"--extension-addr", ":9403"}); err == nil || !strings.Contains(err.Error(), "--extension-secret-file") {
		t.Fatalf("an endpoint without a secret: %v", err)
	}
	if _, err := parseArgs([]string{"--extension-trust-groups"}); err == nil || !strings.Contains(err.Error(), "--extension-actions") {
		t.Fatalf("trusting groups without actions: %v", err)
	}
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte("0123456789abcdef0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o, err = parseArgs([]string{"--extension-addr", "127.0.0.1:0", "--extension-secret-file", path, "--extension-actions", "--extension-trust-groups"})
	if err != nil || !o.ext.actions || !o.ext.trustGroups {
		t.Fatalf("%v %+v", err, o.ext)
	}
	stop, err := o.ext.serve("argocd", fake.NewClientset(), argofake.NewSimpleClientset(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	stop()
	o.ext.secretFile = filepath.Join(t.TempDir(), "none")
	if _, err := o.ext.serve("argocd", fake.NewClientset(), argofake.NewSimpleClientset(), slog.New(slog.DiscardHandler)); err == nil {
		t.Fatal("a missing secret file starts the endpoint")
	}
}
