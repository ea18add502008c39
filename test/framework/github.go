package framework

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
)

// FakeGitHub stands in for the internet a user's commands reach — raw.githubusercontent.com
// and github.com's release downloads — so the commands of the docs run as written: an HTTPS
// proxy (HTTPS_PROXY) that answers a CONNECT to any host itself, with a certificate of the
// test CA (SSL_CERT_FILE, CURL_CA_BUNDLE), and serves the files it was given by URL; any
// other URL is 404. Nothing leaves the machine.
type FakeGitHub struct {
	// Files are the URLs it serves (https://host/path) and the local file of each.
	Files  map[string]string
	addr   string
	caFile string
	ca     *keyPair
	mu     sync.Mutex
	certs  map[string]*tls.Certificate
	ln     net.Listener
}

// StartFakeGitHub serves files until the environment stops.
func (e *Env) StartFakeGitHub(files map[string]string) (*FakeGitHub, error) {
	g := &FakeGitHub{Files: files, ca: e.PKI.ca, caFile: e.PKI.CAFile, certs: map[string]*tls.Certificate{}}
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	if g.ln, err = net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err != nil {
		return nil, fmt.Errorf("fake github: %w", err)
	}
	g.addr = g.ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(g.connect)}
	go func() { _ = srv.Serve(g.ln) }()
	e.closers = append(e.closers, srv.Close)
	return g, nil
}

// Env is what a command needs to reach the fake GitHub: the proxy, and the test CA as the
// CA bundle of Go programs, curl and git.
func (g *FakeGitHub) Env() []string {
	proxy := "http://" + g.addr
	return []string{"HTTPS_PROXY=" + proxy, "https_proxy=" + proxy, "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
		"SSL_CERT_FILE=" + g.caFile, "CURL_CA_BUNDLE=" + g.caFile, "GIT_SSL_CAINFO=" + g.caFile}
}

// connect takes over a CONNECT tunnel and speaks TLS in it as the host asked for.
func (g *FakeGitHub) connect(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodConnect {
		http.Error(w, "only https through CONNECT", http.StatusForbidden)
		return
	}
	host, _, _ := net.SplitHostPort(r.Host)
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "no hijack", http.StatusInternalServerError)
		return
	}
	conn, rw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	if _, err := rw.WriteString("HTTP/1.1 200 Connection established\r\n\r\n"); err != nil || rw.Flush() != nil {
		return
	}
	tc := tls.Server(conn, &tls.Config{GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return g.cert(host) }})
	if err := tc.Handshake(); err != nil {
		return
	}
	g.serve(tc, host)
}

// serve answers the requests of one tunnel from Files.
func (g *FakeGitHub) serve(c *tls.Conn, host string) {
	done := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if file, ok := g.Files["https://"+host+r.URL.Path]; ok {
			http.ServeFile(w, r, file)
			return
		}
		http.NotFound(w, r)
	}), ConnState: func(_ net.Conn, st http.ConnState) {
		if st == http.StateClosed || st == http.StateHijacked {
			close(done)
		}
	}}
	_ = srv.Serve(&oneConn{c: c, done: done})
}

// oneConn is a listener that accepts one connection, then waits for it to close.
type oneConn struct {
	c    net.Conn
	done chan struct{}
	once sync.Once
}

func (l *oneConn) Accept() (net.Conn, error) {
	var c net.Conn
	l.once.Do(func() { c = l.c })
	if c != nil {
		return c, nil
	}
	<-l.done
	return nil, net.ErrClosed
}

func (l *oneConn) Close() error   { return nil }
func (l *oneConn) Addr() net.Addr { return l.c.LocalAddr() }

// cert is a serving certificate of the test CA for host.
func (g *FakeGitHub) cert(host string) (*tls.Certificate, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c, ok := g.certs[host]; ok {
		return c, nil
	}
	kp, err := newKeyPair(&x509.Certificate{Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, g.ca)
	if err != nil {
		return nil, err
	}
	c := &tls.Certificate{Certificate: [][]byte{kp.der, g.ca.der}, PrivateKey: kp.key}
	g.certs[host] = c
	return c, nil
}

// ReleaseFiles are the URLs of a release's files on github.com, by the files of dir (what
// hack/release.sh wrote), for Files.
func ReleaseFiles(repo, version, dir string) (map[string]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, en := range entries {
		if en.Type().IsRegular() {
			out["https://github.com/"+repo+"/releases/download/"+version+"/"+en.Name()] = filepath.Join(dir, en.Name())
		}
	}
	return out, nil
}
