package argoapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func tokenFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWarmManifestsAsksForTheChildAtTheRevision(t *testing.T) {
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		_, _ = w.Write([]byte(`{"manifests":["{}"]}`))
	}))
	defer srv.Close()
	c, err := New(Config{Server: srv.URL + "/argo-cd", TokenFile: tokenFile(t, "s3cret\n")})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WarmManifests(context.Background(), "guestbook-dev-1", "argocd", "0123abc"); err != nil {
		t.Fatal(err)
	}
	if got.Method != http.MethodGet || got.URL.Path != "/argo-cd/api/v1/applications/guestbook-dev-1/manifests" ||
		got.URL.Query().Get("revision") != "0123abc" || got.URL.Query().Get("appNamespace") != "argocd" {
		t.Fatalf("asked %s %s", got.Method, got.URL)
	}
	if h := got.Header.Get("Authorization"); h != "Bearer s3cret" {
		t.Fatalf("authorization %q", h)
	}
}

func TestWarmManifestsErrorsNeverCarryTheToken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect/api/v1/applications/a/manifests" {
			http.Redirect(w, r, "http://elsewhere.example/", http.StatusFound)
			return
		}
		http.Error(w, "permission denied: "+r.Header.Get("Authorization"), http.StatusForbidden)
	}))
	defer srv.Close()
	for _, base := range []string{srv.URL, srv.URL + "/redirect"} {
		c, err := New(Config{Server: base, TokenFile: tokenFile(t, "s3cret")})
		if err != nil {
			t.Fatal(err)
		}
		err = c.WarmManifests(context.Background(), "a", "argocd", "r")
		if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "warm manifests of a") {
			t.Fatalf("%s: %v", base, err)
		}
	}
}

func TestNewRefusesWhatCannotWork(t *testing.T) {
	good := tokenFile(t, "tok")
	for name, c := range map[string]Config{
		"no scheme":         {Server: "argocd-server.argocd.svc", TokenFile: good},
		"other scheme":      {Server: "grpc://argocd-server", TokenFile: good},
		"no token file":     {Server: "https://argocd-server"},
		"missing file":      {Server: "https://argocd-server", TokenFile: filepath.Join(t.TempDir(), "none")},
		"empty token":       {Server: "https://argocd-server", TokenFile: tokenFile(t, " \n")},
		"two lines":         {Server: "https://argocd-server", TokenFile: tokenFile(t, "a\nb\n")},
		"CA file not a PEM": {Server: "https://argocd-server", TokenFile: good, CAFile: good},
	} {
		if _, err := New(c); err == nil || strings.Contains(err.Error(), "tok\n") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestTheTokenIsReadOnEveryCall(t *testing.T) {
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = append(auth, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	path := tokenFile(t, "one")
	c, err := New(Config{Server: srv.URL, TokenFile: path})
	if err != nil {
		t.Fatal(err)
	}
	_ = c.WarmManifests(context.Background(), "a", "argocd", "r")
	if err := os.WriteFile(path, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	_ = c.WarmManifests(context.Background(), "a", "argocd", "r")
	if strings.Join(auth, ",") != "Bearer one,Bearer two" {
		t.Fatalf("%v", auth)
	}
}

// TestClustersListsArgoCDsClusters: the list comes from GET /api/v1/clusters with the
// token; an answer that is not 200, not a list or over the bound is an error that names
// the fix and never the token.
func TestClustersListsArgoCDsClusters(t *testing.T) {
	answer, status := `{"metadata":{},"items":[{"server":"https://prod-1","name":"prod-1","config":{"tlsClientConfig":{"insecure":false}},"labels":{"env":"prod"}}]}`, http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/clusters" || r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "no", http.StatusNotFound)
			return
		}
		w.WriteHeader(status)
		_, _ = w.Write([]byte(answer))
	}))
	defer srv.Close()
	c, err := New(Config{Server: srv.URL, TokenFile: tokenFile(t, "s3cret")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.Clusters(context.Background())
	if err != nil || len(got) != 1 || got[0].Name != "prod-1" || got[0].Labels["env"] != "prod" {
		t.Fatalf("%+v %v", got, err)
	}
	for _, bad := range []struct {
		answer string
		status int
		want   string
	}{
		{`permission denied`, http.StatusForbidden, "give the token's account get"},
		{`token is expired`, http.StatusUnauthorized, "argocd account generate-token"},
		{`<html>`, http.StatusOK, "not a cluster list"},
		{`{"items":"` + strings.Repeat("x", maxClusterList) + `"}`, http.StatusOK, "over 64 MiB"},
	} {
		answer, status = bad.answer, bad.status
		_, err := c.Clusters(context.Background())
		if err == nil || !strings.Contains(err.Error(), bad.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%d %.20s: %v", bad.status, bad.answer, err)
		}
	}
}

// TestCanIAsksArgoCDForTheObject: the question goes to /api/v1/account/can-i with the
// object's '/' and '*' as they are; yes and no are answers, anything else an error.
func TestCanIAsksArgoCDForTheObject(t *testing.T) {
	answer := `{"value":"yes"}`
	var path string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path = r.URL.Path
		_, _ = w.Write([]byte(answer))
	}))
	defer srv.Close()
	c, err := New(Config{Server: srv.URL, TokenFile: tokenFile(t, "s3cret")})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		answer string
		want   bool
		fails  bool
	}{{`{"value":"yes"}`, true, false}, {`{"value":"no"}`, false, false}, {`{"value":"maybe"}`, false, true}, {`<html>`, false, true}} {
		answer = tc.answer
		got, err := c.CanI(context.Background(), "clusters", "get", "*")
		if got != tc.want || (err != nil) != tc.fails || path != "/api/v1/account/can-i/clusters/get/*" {
			t.Errorf("%s: %v %v at %s", tc.answer, got, err, path)
		}
	}
}

// TestATokenPutWhereItsFileGoesIsNeverSaid: a token given as --argocd-token-file's value (a
// secretKeyRef on the variable instead of a mounted file) is not echoed in the error.
func TestATokenPutWhereItsFileGoesIsNeverSaid(t *testing.T) {
	_, err := New(Config{Server: "https://argocd-server", TokenFile: "eyJhbGciOiJIUzI1NiJ9.SECRET-TOKEN.sig"})
	if err == nil || strings.Contains(err.Error(), "SECRET-TOKEN") || !strings.Contains(err.Error(), "not the token itself") {
		t.Fatalf("%v", err)
	}
}
