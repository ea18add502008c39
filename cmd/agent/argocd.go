package main

import (
	"errors"
	"github.com/spf13/pflag"

	"github.com/cmp-phase/cmp-phase/internal/agent/argoapi"
)

// argoAPI are the flags of argocd-server's API, which the agent uses (when given) to warm
// the manifests of the children a rollout admits next.
type argoAPI struct{ cfg argoapi.Config }

// BindFlags registers --argocd-server, --argocd-token-file and --argocd-ca-file.
func (f *argoAPI) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&f.cfg.Server, "argocd-server", "", "argocd-server's URL (e.g. https://argocd-server.argocd.svc): ask it for the manifests of the children a rollout admits next, so their move finds them cached (empty: never)")
	fs.StringVar(&f.cfg.TokenFile, "argocd-token-file", "", "file of an Argo CD API token of an account that may get applications (RBAC: p, <role>, applications, get, */*, allow) and, with --inventory-from argocd, clusters (p, <role>, clusters, get, *, allow); read on every call")
	fs.StringVar(&f.cfg.CAFile, "argocd-ca-file", "", "PEM bundle that signs argocd-server's certificate (empty: the system's)")
}

// client checks the flags and makes the client (nil without --argocd-server).
func (f *argoAPI) client() (*argoapi.Client, error) {
	if f.cfg.Server == "" {
		if f.cfg.TokenFile != "" || f.cfg.CAFile != "" {
			return nil, errors.New("--argocd-token-file and --argocd-ca-file need --argocd-server (fix: set it, or drop them)")
		}
		return nil, nil
	}
	return argoapi.New(f.cfg)
}
