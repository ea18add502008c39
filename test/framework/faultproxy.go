package framework

import (
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Faults a FaultProxy injects.
const (
	FaultConflict = "409"
	FaultThrottle = "429"
	FaultInternal = "500"
	FaultReset    = "reset"
	FaultStall    = "stall"
)

// FaultProxy stands between a program and the API server (plain HTTP on loopback, the
// admin's credentials upstream) and fails a share of its requests: 409 on writes, 429
// with Retry-After, 500, connection resets, and stalls. Watches and Lease calls pass
// untouched (a watch's faults are its reconnects; leader election has its own test).
type FaultProxy struct {
	URL        string
	Kubeconfig string // a kubeconfig that reaches the API server through the proxy
	rate       float64
	mu         sync.Mutex
	rnd        *rand.Rand
	injected   map[string]int
	srv        *http.Server
}

// StartFaultProxy starts a proxy failing rate (0..1) of eligible requests, seeded.
func (e *Env) StartFaultProxy(rate float64, seed uint64) (*FaultProxy, error) {
	up, err := url.Parse(e.APIServerURL)
	if err != nil {
		return nil, err
	}
	tr, err := rest.TransportFor(e.RestConfig)
	if err != nil {
		return nil, fmt.Errorf("fault proxy transport: %w", err)
	}
	rp := httputil.NewSingleHostReverseProxy(up)
	rp.Transport, rp.FlushInterval = tr, -1
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fault proxy listen: %w", err)
	}
	f := &FaultProxy{URL: "http://" + l.Addr().String(), rate: rate, rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), injected: map[string]int{}}
	f.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !f.inject(w, r) {
			rp.ServeHTTP(w, r)
		}
	})}
	go func() { _ = f.srv.Serve(l) }()
	e.closers = append(e.closers, f.srv.Close)
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["faulty"] = &clientcmdapi.Cluster{Server: f.URL}
	cfg.AuthInfos["anyone"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["faulty"] = &clientcmdapi.Context{Cluster: "faulty", AuthInfo: "anyone", Namespace: ArgoNamespace}
	cfg.CurrentContext = "faulty"
	f.Kubeconfig = filepath.Join(e.Dir, fmt.Sprintf("kubeconfig-faulty-%d", seed))
	if err := clientcmd.WriteToFile(*cfg, f.Kubeconfig); err != nil {
		return nil, fmt.Errorf("write faulty kubeconfig: %w", err)
	}
	return f, nil
}

// Injected counts the faults injected so far, by kind.
func (f *FaultProxy) Injected() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for k, v := range f.injected {
		out[k] = v
	}
	return out
}

// inject fails the request (and reports true) or lets it through, stalling it first.
func (f *FaultProxy) inject(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Query().Get("watch") == "true" || strings.Contains(r.URL.Path, "/leases") {
		return false
	}
	kinds := []string{FaultThrottle, FaultInternal, FaultReset, FaultStall}
	if r.Method != http.MethodGet {
		kinds = append(kinds, FaultConflict)
	}
	f.mu.Lock()
	fail := f.rnd.Float64() < f.rate
	kind := kinds[f.rnd.IntN(len(kinds))]
	if fail {
		f.injected[kind]++
	}
	f.mu.Unlock()
	if !fail {
		return false
	}
	switch kind {
	case FaultStall:
		time.Sleep(3 * time.Second)
		return false
	case FaultReset:
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				if tc, ok := c.(*net.TCPConn); ok {
					_ = tc.SetLinger(0)
				}
				_ = c.Close()
				return true
			}
		}
		kind = FaultInternal
	case FaultThrottle:
		w.Header().Set("Retry-After", "1")
	}
	status(w, kind)
	return true
}

func status(w http.ResponseWriter, kind string) {
	code, reason := map[string]int{FaultConflict: 409, FaultThrottle: 429, FaultInternal: 500}[kind], map[string]string{FaultConflict: "Conflict", FaultThrottle: "TooManyRequests", FaultInternal: "InternalError"}[kind]
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"injected %s","reason":%q,"code":%d}`, kind, reason, code)
}
