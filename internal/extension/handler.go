package extension

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	argov1alpha1 "github.com/argoproj/argo-cd/v3/pkg/client/clientset/versioned/typed/application/v1alpha1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// The headers Argo CD's proxy extension sets (argo-cd server/extension) and the one this
// package adds to the response.
const (
	HeaderApplication = "Argocd-Application-Name" // namespace:name of the parent
	HeaderProject     = "Argocd-Project-Name"
	HeaderUsername    = "Argocd-Username"
	HeaderGroups      = "Argocd-User-Groups" // comma-separated
	// DefaultSecretHeader carries the shared secret extension.config adds to each request.
	DefaultSecretHeader = "Cmp-Phase-Extension-Secret"
	// HeaderActions, on a status response, says whether the actions are on ("on" or "off").
	HeaderActions = "Cmp-Phase-Actions"
	// HeaderNamespace, on a status response, is the namespace of the rollout's ConfigMaps
	// (what `cmp-phase -n` takes).
	HeaderNamespace = "Cmp-Phase-Namespace"
)

// Defaults of Options.
const (
	DefaultMaxInFlight    = 16
	DefaultRequestTimeout = 10 * time.Second
	// MaxBody is the largest action request body read (a phase and a reason).
	MaxBody = 4 << 10
)

// Options configure the handler.
type Options struct {
	// Namespace holds the parents, the plan and the state ConfigMaps (the agent's).
	Namespace string
	// Secret is the shared secret argocd-server sends in SecretHeader (required).
	Secret       []byte
	SecretHeader string // default DefaultSecretHeader
	// Actions switches on the write endpoints; off, none of them answers.
	Actions bool
	// TrustGroups records the Argocd-User-Groups header with an approval or rejection.
	// argocd-server sets it only for users whose token has groups and passes on one the
	// browser sent otherwise, so it is trustworthy only where every user who may invoke the
	// extension has groups (SSO with a groups claim); off, answers carry no groups and count
	// only for gates that ask none.
	TrustGroups bool
	// MaxInFlight bounds the requests served at once; more get 503.
	MaxInFlight int
	// RequestTimeout bounds each request's API calls.
	RequestTimeout time.Duration
	ConfigMaps     corev1client.ConfigMapsGetter
	Applications   argov1alpha1.ApplicationsGetter
	Log            *slog.Logger
}

// handler is the extension's http.Handler.
type handler struct {
	o        Options
	secret   [sha256.Size]byte
	inFlight chan struct{}
	mux      *http.ServeMux
}

// New is the handler of the extension's endpoints, under the path argocd-server forwards
// (/extensions/cmp-phase stripped): GET /api/v1/status, and with Actions on
// POST /api/v1/actions/{verb}.
func New(o Options) (http.Handler, error) {
	if len(o.Secret) == 0 {
		return nil, errors.New("extension: no shared secret (fix: give the agent --extension-secret-file, the file of the key extension.config references)")
	}
	if o.ConfigMaps == nil || o.Applications == nil || o.Namespace == "" {
		return nil, errors.New("extension: ConfigMaps, Applications and Namespace are required")
	}
	if o.SecretHeader == "" {
		o.SecretHeader = DefaultSecretHeader
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = DefaultMaxInFlight
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	h := &handler{o: o, secret: sha256.Sum256(o.Secret), inFlight: make(chan struct{}, o.MaxInFlight), mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /api/v1/status", h.status)
	if o.Actions {
		h.mux.HandleFunc("POST /api/v1/actions/{verb}", h.action)
	}
	return h, nil
}

// ServeHTTP checks the shared secret before anything else, then bounds the request.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if !h.fromArgoCD(r) {
		h.o.Log.Warn("extension request refused: no or wrong shared secret", "path", r.URL.Path, "remote", r.RemoteAddr)
		refuse(w, http.StatusUnauthorized, "not through Argo CD's proxy extension (fix: reach this endpoint through argocd-server's /extensions/cmp-phase/)")
		return
	}
	select {
	case h.inFlight <- struct{}{}:
		defer func() { <-h.inFlight }()
	default:
		w.Header().Set("Retry-After", "1")
		refuse(w, http.StatusServiceUnavailable, "too many requests at once (fix: retry in a second)")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.o.RequestTimeout)
	defer cancel()
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	h.mux.ServeHTTP(w, r.WithContext(ctx))
}

// fromArgoCD compares the secret header with the secret in constant time (of their
// digests, so not even the length shows).
func (h *handler) fromArgoCD(r *http.Request) bool {
	got := r.Header.Get(h.o.SecretHeader)
	if got == "" {
		return false
	}
	sum := sha256.Sum256([]byte(got))
	return subtle.ConstantTimeCompare(sum[:], h.secret[:]) == 1
}

// problem is an error response's body.
type problem struct {
	Error string `json:"error"`
}

func refuse(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, problem{Error: msg})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		code, b = http.StatusInternalServerError, []byte(`{"error":"encode the response"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = fmt.Fprintf(w, "%s\n", b)
}

// identity is the parent named by Argo CD's headers.
type identity struct {
	namespace, name, project string
}

// parentOf reads the Argocd-Application-Name (namespace:name) and Argocd-Project-Name
// headers argocd-server checked the user's access against.
func parentOf(r *http.Request) (identity, error) {
	ns, name, ok := strings.Cut(r.Header.Get(HeaderApplication), ":")
	if !ok || ns == "" || name == "" || strings.Contains(name, ":") {
		return identity{}, fmt.Errorf("header %s must be namespace:name (fix: call through argocd-server's proxy extension, which sets it)", HeaderApplication)
	}
	proj := r.Header.Get(HeaderProject)
	if proj == "" {
		return identity{}, fmt.Errorf("header %s is missing (fix: call through argocd-server's proxy extension, which sets it)", HeaderProject)
	}
	return identity{namespace: ns, name: name, project: proj}, nil
}
