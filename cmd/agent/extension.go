package main

import (
	"errors"
	"github.com/spf13/pflag"
	"log/slog"

	argoclient "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-phase/cmp-phase/internal/extension"
)

// extensionFlags configure the endpoint the Argo CD UI extension reads through argocd-server's
// proxy extension (internal/extension).
type extensionFlags struct {
	addr        string
	secretFile  string
	actions     bool
	trustGroups bool
	maxInFlight int
}

// BindFlags registers --extension-addr, --extension-secret-file, --extension-actions,
// --extension-trust-groups and --extension-max-in-flight.
func (e *extensionFlags) BindFlags(fs *pflag.FlagSet) {
	fs.StringVar(&e.addr, "extension-addr", "", "serve the Argo CD UI extension's status endpoint on this address, for argocd-server's proxy extension only (empty: off)")
	fs.StringVar(&e.secretFile, "extension-secret-file", "", "file holding the shared secret argocd-server sends (the argocd-secret key extension.config references); required with --extension-addr")
	fs.BoolVar(&e.actions, "extension-actions", false, "let the UI approve, reject, pause, resume and promote, as the Argo CD user (off: the endpoint is read-only)")
	fs.BoolVar(&e.trustGroups, "extension-trust-groups", false, "record the Argo CD user's groups with UI approvals, for gates that ask groups: only where every user who may invoke the extension logs in through SSO with a groups claim (argocd-server passes a browser's own Argocd-User-Groups for users without groups)")
	fs.IntVar(&e.maxInFlight, "extension-max-in-flight", extension.DefaultMaxInFlight, "requests the extension endpoint serves at once (more get 503)")
}

func (e *extensionFlags) validate() error {
	if e.trustGroups && !e.actions {
		return errors.New("--extension-trust-groups without --extension-actions (fix: it only changes what UI approvals record; drop it or add --extension-actions)")
	}
	if e.addr != "" && e.secretFile == "" {
		return errors.New("--extension-addr without --extension-secret-file (fix: mount the shared secret and name its file)")
	}
	return nil
}

// serve starts the endpoint when --extension-addr is set; stop ends it (a no-op when off).
func (e *extensionFlags) serve(namespace string, kube kubernetes.Interface, argo argoclient.Interface, log *slog.Logger) (stop func(), err error) {
	if e.addr == "" {
		return func() {}, nil
	}
	secret, err := extension.ReadSecret(e.secretFile)
	if err != nil {
		return nil, err
	}
	h, err := extension.New(extension.Options{Namespace: namespace, Secret: secret, Actions: e.actions, TrustGroups: e.trustGroups, MaxInFlight: e.maxInFlight,
		ConfigMaps: kube.CoreV1(), Applications: argo.ArgoprojV1alpha1(), Log: log.With("component", "extension")})
	if err != nil {
		return nil, err
	}
	return extension.Serve(e.addr, h, log)
}
