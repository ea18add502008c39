package framework

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// startKube starts etcd, kube-apiserver and kube-controller-manager on 127.0.0.1.
func (e *Env) startKube(ctx context.Context) error {
	ips := []net.IP{net.ParseIP("127.0.0.1")}
	for i := range e.opts.Clusters {
		ips = append(ips, clusterIP(i))
	}
	pki, err := NewPKI(filepath.Join(e.Dir, "pki"), ips)
	if err != nil {
		return err
	}
	e.PKI = pki
	if err := e.startEtcd(ctx); err != nil {
		return err
	}
	if err := e.startAPIServer(ctx); err != nil {
		return err
	}
	return e.startControllerManager()
}

func (e *Env) startEtcd(ctx context.Context) error {
	client, err := FreePort()
	if err != nil {
		return err
	}
	peer, err := FreePort()
	if err != nil {
		return err
	}
	e.etcdURL = "http://127.0.0.1:" + strconv.Itoa(client)
	peerURL := "http://127.0.0.1:" + strconv.Itoa(peer)
	p, err := e.Start(ProcSpec{Name: "etcd", Path: e.Tools.Etcd, Args: []string{
		"--data-dir", filepath.Join(e.Dir, "etcd"),
		"--listen-client-urls", e.etcdURL, "--advertise-client-urls", e.etcdURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "default=" + peerURL,
		"--unsafe-no-fsync", "--log-level", "warn",
	}})
	if err != nil {
		return err
	}
	return WaitTCP(ctx, p, "127.0.0.1:"+strconv.Itoa(client))
}

func (e *Env) startAPIServer(ctx context.Context) error {
	port, err := FreePort()
	if err != nil {
		return err
	}
	e.apiPort = port
	e.APIServerURL = "https://127.0.0.1:" + strconv.Itoa(port)
	p, err := e.Start(ProcSpec{Name: "kube-apiserver", Path: e.Tools.KubeAPIServer, Args: []string{
		"--etcd-servers", e.etcdURL,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(port),
		"--tls-cert-file", e.PKI.ServerCert, "--tls-private-key-file", e.PKI.ServerKey,
		"--client-ca-file", e.PKI.CAFile,
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", e.PKI.SAPub,
		"--service-account-signing-key-file", e.PKI.SAKey,
		"--service-cluster-ip-range", "10.96.0.0/24",
		"--authorization-mode", "RBAC",
		"--endpoint-reconciler-type", "none",
		"--enable-priority-and-fairness=false",
		"--cert-dir", filepath.Join(e.Dir, "pki", "apiserver"),
	}})
	if err != nil {
		return err
	}
	if err := e.writeKubeconfig(); err != nil {
		return err
	}
	return e.waitReady(ctx, p)
}

func (e *Env) writeKubeconfig() error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: e.APIServerURL, CertificateAuthorityData: e.PKI.CACert}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: e.PKI.AdminCert, ClientKeyData: e.PKI.AdminKey}
	cfg.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: "admin", Namespace: ArgoNamespace}
	cfg.CurrentContext = "test"
	e.Kubeconfig = filepath.Join(e.Dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, e.Kubeconfig); err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	rc, err := clientcmd.BuildConfigFromFlags("", e.Kubeconfig)
	if err != nil {
		return fmt.Errorf("load kubeconfig: %w", err)
	}
	rc.QPS, rc.Burst = 200, 400
	e.RestConfig = rc
	return nil
}

func (e *Env) waitReady(ctx context.Context, p *Proc) error {
	return waitHTTPReady(ctx, e.RestConfig, p)
}

// startControllerManager runs the garbage collector and namespace controller (without them
// deleting an Application with the resources finalizer, or a namespace, never completes),
// and the Job controllers Job hooks run under, with the default ServiceAccount their pods
// need (and Pods: a scheduler and kwok); and the token controller and the root CA publisher,
// which fill ServiceAccount token Secrets and kube-root-ca.crt for containers the harness
// runs from manifests (RunContainer).
func (e *Env) startControllerManager() error {
	_, err := e.Start(ProcSpec{Name: "kube-controller-manager", Path: e.Tools.KubeControllerManager, Args: []string{
		"--kubeconfig", e.Kubeconfig,
		"--controllers", "garbagecollector,namespace,serviceaccount,serviceaccount-token,root-ca-cert-publisher,job,ttl-after-finished",
		"--service-account-private-key-file", e.PKI.SAKey,
		"--root-ca-file", e.PKI.CAFile,
		"--leader-elect=false",
		"--secure-port=0",
		"--use-service-account-credentials=false",
	}})
	return err
}

func clusterIP(i int) net.IP { return net.IPv4(127, 0, 0, byte(2+i)) }

// forward accepts on 127.0.0.k:port and copies bytes to the API server on 127.0.0.1,
// so each "cluster" has its own server URL while one API server answers all of them.
func (e *Env) forward(ip net.IP, targetPort int) (string, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(ip.String(), strconv.Itoa(e.apiPort)))
	if err != nil {
		return "", fmt.Errorf("listen on %s: %w", ip, err)
	}
	e.closers = append(e.closers, l.Close)
	f := &forwarder{target: "127.0.0.1:" + strconv.Itoa(targetPort), conns: map[net.Conn]struct{}{}}
	e.mu.Lock()
	if e.forwarders == nil {
		e.forwarders = map[string]*forwarder{}
	}
	e.forwarders["https://"+l.Addr().String()] = f
	e.mu.Unlock()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go f.pipe(c)
		}
	}()
	return "https://" + l.Addr().String(), nil
}

// forwarder is one cluster's address: it pipes connections to the API server unless the
// cluster is cut (CutCluster), when it drops them as a restarting API server does.
type forwarder struct {
	target string
	mu     sync.Mutex
	until  time.Time
	conns  map[net.Conn]struct{}
	delay  atomic.Int64 // nanoseconds each chunk a client sends waits (SlowCluster)
}

func (f *forwarder) pipe(c net.Conn) {
	f.mu.Lock()
	if time.Now().Before(f.until) {
		f.mu.Unlock()
		_ = c.Close() // down: the client reads EOF
		return
	}
	f.conns[c] = struct{}{}
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.conns, c)
		f.mu.Unlock()
	}()
	f.pipeTo(c)
}

// pipeTo pipes c to the target, each chunk c sends held for the forwarder's delay.
func (f *forwarder) pipeTo(c net.Conn) {
	defer c.Close()
	u, err := net.DialTimeout("tcp", f.target, 5*time.Second)
	if err != nil {
		return
	}
	defer u.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = f.slowCopy(u, c); done <- struct{}{} }()
	go func() { _, _ = copyConn(c, u); done <- struct{}{} }()
	<-done
}

// slowCopy is copyConn, each chunk read from src written after the forwarder's delay.
func (f *forwarder) slowCopy(dst, src net.Conn) (int64, error) {
	defer func() {
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
	}()
	buf := make([]byte, 32<<10)
	var n int64
	for {
		k, err := src.Read(buf)
		if k > 0 {
			if d := time.Duration(f.delay.Load()); d > 0 {
				time.Sleep(d)
			}
			if _, werr := dst.Write(buf[:k]); werr != nil {
				return n, werr
			}
			n += int64(k)
		}
		if err != nil {
			return n, err
		}
	}
}

// SlowCluster makes every chunk sent to cluster name's API server wait delay (0: none
// again), as a slow or far cluster would answer.
func (e *Env) SlowCluster(name string, delay time.Duration) error {
	f, err := e.forwarderOf(name)
	if err != nil {
		return fmt.Errorf("slow cluster %s: %w", name, err)
	}
	f.delay.Store(int64(delay))
	return nil
}

// cut drops every open connection and every new one for d.
func (f *forwarder) cut(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.until = time.Now().Add(d)
	for c := range f.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // a reset, as from a process that died
		}
		_ = c.Close()
	}
}

// CutCluster makes cluster name's API server unreachable for d, as its restart would: its
// open connections (the application controller's watches and a sync's requests) are
// reset and new ones are closed at once until d has passed. The control plane is untouched.
func (e *Env) CutCluster(name string, d time.Duration) error {
	f, err := e.forwarderOf(name)
	if err != nil {
		return fmt.Errorf("cut cluster %s: %w", name, err)
	}
	f.cut(d)
	return nil
}

// forwarderOf is the forwarder of cluster name's address.
func (e *Env) forwarderOf(name string) (*forwarder, error) {
	for _, c := range e.Clusters {
		if c.Name != name {
			continue
		}
		e.mu.Lock()
		f := e.forwarders[c.Server]
		e.mu.Unlock()
		if f == nil {
			return nil, fmt.Errorf("no forwarder for %s", c.Server)
		}
		return f, nil
	}
	return nil, fmt.Errorf("no such cluster")
}

func copyConn(dst, src net.Conn) (int64, error) {
	defer func() {
		if tc, ok := dst.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
	}()
	return io.Copy(dst, src)
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("mkdir for %s: %w", path, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
