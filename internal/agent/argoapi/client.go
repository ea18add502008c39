package argoapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
)

// Config says where argocd-server is and how to authenticate to it.
type Config struct {
	// Server is argocd-server's base URL: https://argocd-server.argocd.svc (TLS verified),
	// or http://… for a server run with server.insecure.
	Server string
	// TokenFile holds an Argo CD API token of an account allowed `applications, get`.
	TokenFile string
	// CAFile is the PEM bundle that signs argocd-server's certificate (empty: the system's).
	CAFile string
}

// Client calls argocd-server.
type Client struct {
	base      *url.URL
	tokenFile string
	http      *http.Client
}

// callTimeout bounds one call. Longer than the application controller's own wait for the
// repo-server (60 s by default): a call given up cancels the generation, which the
// repo-server counts as a failure of the very cache key the controller's comparison reads.
const callTimeout = 3 * time.Minute

// New checks the configuration and returns a client of it.
func New(c Config) (*Client, error) {
	u, err := url.Parse(c.Server)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("--argocd-server %q is not an http(s) URL (fix: e.g. https://argocd-server.argocd.svc)", c.Server)
	}
	if _, err := readToken(c.TokenFile); err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil // argocd-server is in the cluster; a proxy would see the token of an http:// URL
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read --argocd-ca-file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--argocd-ca-file %s holds no PEM certificate", c.CAFile)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return &Client{base: u, tokenFile: c.TokenFile, http: &http.Client{Transport: tr, Timeout: callTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}, nil
}

// readToken reads the API token; the error names the file, never its content.
func readToken(path string) (string, error) {
	if path == "" {
		return "", errors.New("--argocd-token-file is empty (fix: the file of an Argo CD API token, e.g. a mounted Secret)")
	}
	b, err := os.ReadFile(path)
	if err != nil { // the error names the path: never said, it may be the token put in by mistake
		return "", errors.New("--argocd-token-file is not a readable file (fix: the path of a mounted file holding the token, not the token itself)")
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" || strings.ContainsAny(tok, "\r\n") {
		return "", errors.New("--argocd-token-file does not hold one token (fix: argocd account generate-token --account <account>)")
	}
	return tok, nil
}

// WarmManifests asks argocd-server for the manifests of Application app (in appNamespace)
// at revision, which leaves them in the repo-server's cache under the key the application
// controller's next comparison at that revision uses. The answer is discarded.
func (c *Client) WarmManifests(ctx context.Context, app, appNamespace, revision string) error {
	tok, err := readToken(c.tokenFile)
	if err != nil {
		return err
	}
	u := c.base.JoinPath("api/v1/applications", app, "manifests")
	u.RawQuery = url.Values{"revision": {revision}, "appNamespace": {appNamespace}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return fmt.Errorf("warm manifests of %s: %w", app, err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("warm manifests of %s: %w", app, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("warm manifests of %s: argocd-server answered %s", app, resp.Status)
	}
	return nil
}

// listTimeout bounds a cluster list or can-i question: argocd-server answers both from its
// caches, and the agent's workers wait on them (callTimeout is for generating manifests).
const listTimeout = 30 * time.Second

// maxClusterList bounds, in bytes, the cluster list read from argocd-server (≈ 1 KB a
// cluster: 10,000 clusters are ≈ 10 MB).
const maxClusterList = 64 << 20

// Clusters lists the clusters argocd-server knows (GET /api/v1/clusters), as its API gives
// them: without credentials, and only those the token's account may get (RBAC: p, <role>,
// clusters, get, *, allow — a cluster the account may not get is silently not listed).
func (c *Client) Clusters(ctx context.Context) ([]v1alpha1.Cluster, error) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	tok, err := readToken(c.tokenFile)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base.JoinPath("api/v1/clusters").String(), nil)
	if err != nil {
		return nil, fmt.Errorf("list Argo CD's clusters: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("list Argo CD's clusters: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("list Argo CD's clusters: argocd-server answered %s (fix: %s)", resp.Status, fixFor(resp.StatusCode))
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxClusterList+1))
	if err != nil {
		return nil, fmt.Errorf("list Argo CD's clusters: %w", err)
	}
	if len(b) > maxClusterList {
		return nil, fmt.Errorf("list Argo CD's clusters: the answer is over %d MiB", maxClusterList>>20)
	}
	var list v1alpha1.ClusterList
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("list Argo CD's clusters: the answer is not a cluster list: %w", err)
	}
	return list.Items, nil
}

// CanI asks argocd-server whether the token's account may do action on resource's object
// (GET /api/v1/account/can-i/…; object may hold '/' and '*').
func (c *Client) CanI(ctx context.Context, resource, action, object string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	tok, err := readToken(c.tokenFile)
	if err != nil {
		return false, err
	}
	u := c.base.JoinPath("api/v1/account/can-i", resource, action, object)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return false, fmt.Errorf("ask argocd-server can-i %s %s: %w", resource, action, err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := c.http.Do(req)
	if err != nil {
		return false, fmt.Errorf("ask argocd-server can-i %s %s: %w", resource, action, err)
	}
	defer resp.Body.Close()
	var answer struct {
		Value string `json:"value"`
	}
	if resp.StatusCode != http.StatusOK {
		return false, fmt.Errorf("ask argocd-server can-i %s %s: argocd-server answered %s (fix: %s)", resource, action, resp.Status, fixFor(resp.StatusCode))
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<10)).Decode(&answer); err != nil || (answer.Value != "yes" && answer.Value != "no") {
		return false, fmt.Errorf("ask argocd-server can-i %s %s: the answer is neither yes nor no", resource, action)
	}
	return answer.Value == "yes", nil
}

// fixFor is the fix of an answer other than 200 to a read of argocd-server's API.
func fixFor(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return "the token is expired, revoked or its account disabled: argocd account generate-token --account <account>, and put it in --argocd-token-file's Secret"
	case http.StatusForbidden:
		return "give the token's account get on it in argocd-rbac-cm"
	}
	return "check --argocd-server names argocd-server, and its logs"
}
