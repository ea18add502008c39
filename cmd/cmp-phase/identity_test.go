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
		{"reject without a reason", []string{"reject", "web", "prod"}, "usage: cmp-phase reject <rollout> <phase> --reason <why>"},
		{"reject without a phase", []string{"reject", "web", "--reason", "no"}, "usage: cmp-phase reject"},
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
// kubectl's do, anywhere among the arguments.
func TestImpersonationFlags(t *testing.T) {
	var k kubeFlags
	var s steerFlags
	fs := steerFlagSet("approve", "", io.Discard, &k, &s)
	if err := parseInterleaved(fs, []string{"web", "--as", "alice", "prod", "--as-group", "sre", "--as-group=system:authenticated", "--reason", "ok"}); err != nil {
		t.Fatal(err)
	}
	if o := k.overrides(); o.AuthInfo.Impersonate != "alice" || !slices.Equal(o.AuthInfo.ImpersonateGroups, []string{"sre", "system:authenticated"}) || !slices.Equal(fs.Args(), []string{"web", "prod"}) {
		t.Fatalf("overrides %+v args %v", o.AuthInfo, fs.Args())
	}
	var other kubeFlags
	if err := parseInterleaved(steerFlagSet("approve", "", io.Discard, &other, &s), []string{"--as-group", " "}); err == nil {
		t.Fatal("an empty group is refused")
	}
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
	k.kubeconfig = kubeconfig
	_, cfg, _, who, err := k.connectConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Impersonate.UserName != "alice" || !slices.Equal(cfg.Impersonate.Groups, []string{"sre", "system:authenticated"}) || who != "admin" {
		t.Fatalf("impersonate %+v who %q", cfg.Impersonate, who)
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
