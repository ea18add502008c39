package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	authv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestAnswersRefuseBy: approve and reject record the authenticated user; --by cannot claim
// another one, and reject, like every verb, needs a reason.
func TestAnswersRefuseBy(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"approve with --by", []string{"approve", "web", "prod", "--reason", "ok", "--by", "mallory"}, "--by cannot name who approves or rejects"},
		{"reject with --by", []string{"reject", "web", "prod", "--reason", "no", "--by", "mallory"}, "--by cannot name who approves or rejects"},
		{"reject without a reason", []string{"reject", "web", "prod"}, "reject needs --reason"},
		{"reject without a phase", []string{"reject", "web", "--reason", "no"}, "reject takes the rollout and <phase>"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := runCmd(t, tc.args...)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Fatalf("code %d stderr %q, want %q", code, errOut, tc.want)
			}
		})
	}
}

// TestImpersonationFlags: --as and --as-group (repeatable) reach the client's config as
// kubectl's do, anywhere among the arguments; who acts is the context's user.
func TestImpersonationFlags(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: admin, user: {token: t}}]
contexts: [{name: ctx, context: {cluster: c, user: admin}}]
current-context: ctx
`), 0o600); err != nil {
		t.Fatal(err)
	}
	var got *conn
	a := &app{ctx: context.Background(), out: io.Discard, errOut: io.Discard}
	a.connect = func() (*conn, error) {
		c, err := a.dial()
		if err != nil {
			return nil, err
		}
		got = c
		return nil, errors.New("stop here")
	}
	root := newRoot(a)
	root.SetArgs([]string{"approve", "web", "--as", "alice", "prod", "--as-group", "sre", "--as-group=system:authenticated", "--reason", "ok", "--kubeconfig", kubeconfig})
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), "stop here") {
		t.Fatalf("execute: %v", err)
	}
	if got == nil || got.cfg.Impersonate.UserName != "alice" || !slices.Equal(got.cfg.Impersonate.Groups, []string{"sre", "system:authenticated"}) || got.user != "admin" || got.namespace != "argocd" {
		t.Fatalf("conn %+v", got)
	}
}

// reviewing is a fake API server whose SelfSubjectReview answers user (and groups), or err.
func reviewing(user string, groups []string, err error) *fake.Clientset {
	kc := fake.NewClientset()
	kc.PrependReactor("create", "selfsubjectreviews", func(k8stesting.Action) (bool, runtime.Object, error) {
		if err != nil {
			return true, nil, err
		}
		return true, &authv1.SelfSubjectReview{Status: authv1.SelfSubjectReviewStatus{UserInfo: authv1.UserInfo{Username: user, Groups: groups}}}, nil
	})
	return kc
}

func TestWhoAmIAsksTheAPIServer(t *testing.T) {
	id, err := whoAmI(context.Background(), reviewing("alice", []string{"sre", "system:authenticated"}, nil))
	if err != nil || id.User != "alice" || !slices.Equal(id.Groups, []string{"sre", "system:authenticated"}) {
		t.Fatalf("%+v %v", id, err)
	}
	if _, err := whoAmI(context.Background(), reviewing("", nil, nil)); err == nil || !strings.Contains(err.Error(), "names no user") {
		t.Fatalf("anonymous: %v", err)
	}
	if _, err := whoAmI(context.Background(), reviewing("", nil, errors.New("the server could not find the requested resource"))); err == nil ||
		!strings.Contains(err.Error(), "SelfSubjectReview, authentication.k8s.io/v1, Kubernetes 1.28 or later") {
		t.Fatalf("an old API server: %v", err)
	}
}
