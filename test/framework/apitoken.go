package framework

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// APITokenFile makes an Argo CD local account allowed `applications, get` on every
// project (argocd-cm accounts.<account>: apiKey, a line of argocd-rbac-cm's policy.csv),
// generates an API token for it through the real CLI (logged in as admin) and writes it to
// a file in the env's dir, whose path it returns: what an installation mounts from a Secret.
func (e *Env) APITokenFile(ctx context.Context, account string) (string, error) {
	return e.APITokenFileWith(ctx, account, "get")
}

// APITokenFileWith is APITokenFile for an account allowed actions on applications (get,
// sync, …); its policy lines are added to those of accounts made before.
func (e *Env) APITokenFileWith(ctx context.Context, account string, actions ...string) (string, error) {
	cms := e.Kube.CoreV1().ConfigMaps(ArgoNamespace)
	rbac, err := cms.Get(ctx, "argocd-rbac-cm", metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("account %s: read argocd-rbac-cm: %w", account, err)
	}
	policy := rbac.Data["policy.csv"]
	for _, act := range actions {
		policy += fmt.Sprintf("p, %s, applications, %s, */*, allow\n", account, act)
	}
	for name, data := range map[string]map[string]string{
		"argocd-cm":      {"accounts." + account: "apiKey"},
		"argocd-rbac-cm": {"policy.csv": policy},
	} {
		patch, _ := json.Marshal(map[string]any{"data": data})
		if _, err := cms.Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return "", fmt.Errorf("account %s: patch %s: %w", account, name, err)
		}
	}
	return e.GenerateAPIToken(ctx, account)
}

// GenerateAPIToken generates an API token for an Argo CD local account that argocd-cm
// already names (accounts.<account>: apiKey) through the real CLI, logged in as admin,
// and writes it to a file in the env's dir, whose path it returns.
func (e *Env) GenerateAPIToken(ctx context.Context, account string) (string, error) {
	if err := e.Login(ctx); err != nil {
		return "", err
	}
	var out string
	var err error
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		// argocd-server reads the account from its settings watch: retry until it has it
		if out, err = e.ArgoCDCLI(ctx, "account", "generate-token", "--account", account); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		return "", fmt.Errorf("generate a token for %s: %w: %s", account, err, out)
	}
	path := filepath.Join(e.Dir, "tmp", account+".token")
	if err := os.WriteFile(path, []byte(strings.TrimSpace(out)+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write token of %s: %w", account, err)
	}
	return path, nil
}
