package framework

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// ownCluster is a cluster's own kube-apiserver: its port, the identity its Argo CD Secret
// carries, and an admin client for the test.
type ownCluster struct {
	port     int
	certData []byte // the cluster Secret's client certificate (user argocd-<name>)
	keyData  []byte
	admin    *rest.Config
	kube     kubernetes.Interface
	procName string
}

// clusterUser is the user a cluster's own identity names.
func clusterUser(name string) string { return "argocd-" + name }

// startOwnAPIServer starts cluster c's kube-apiserver on the control plane's etcd under a
// prefix of its own, issues its identity and binds it to cluster-admin there.
func (e *Env) startOwnAPIServer(ctx context.Context, c Cluster) (*ownCluster, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	oc := &ownCluster{port: port, procName: "kube-apiserver-" + c.Name}
	p, err := e.Start(ProcSpec{Name: oc.procName, Path: e.Tools.KubeAPIServer, Args: []string{
		"--etcd-servers", e.etcdURL, "--etcd-prefix", "/cluster-" + c.Name,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(port),
		"--tls-cert-file", e.PKI.ServerCert, "--tls-private-key-file", e.PKI.ServerKey,
		"--client-ca-file", e.PKI.CAFile,
		"--service-account-issuer", "https://" + c.Name + ".invalid",
		"--service-account-key-file", e.PKI.SAPub,
		"--service-account-signing-key-file", e.PKI.SAKey,
		"--service-cluster-ip-range", "10.97.0.0/24",
		"--authorization-mode", "RBAC",
		"--endpoint-reconciler-type", "none",
		"--enable-priority-and-fairness=false",
		"--cert-dir", filepath.Join(e.Dir, "pki", "apiserver-"+c.Name),
	}})
	if err != nil {
		return nil, err
	}
	oc.admin = &rest.Config{Host: "https://127.0.0.1:" + strconv.Itoa(port), QPS: 50, Burst: 100,
		TLSClientConfig: rest.TLSClientConfig{CAData: e.PKI.CACert, CertData: e.PKI.AdminCert, KeyData: e.PKI.AdminKey}}
	if oc.kube, err = kubernetes.NewForConfig(oc.admin); err != nil {
		return nil, err
	}
	if err := waitHTTPReady(ctx, oc.admin, p); err != nil {
		return nil, fmt.Errorf("cluster %s: %w", c.Name, err)
	}
	if oc.certData, oc.keyData, err = e.PKI.ClientCert(clusterUser(c.Name)); err != nil {
		return nil, err
	}
	return oc, oc.grant(ctx, c.Name)
}

// grant binds the cluster's identity to cluster-admin in its own API server.
func (oc *ownCluster) grant(ctx context.Context, name string) error {
	b := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: clusterUser(name)},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: clusterUser(name)}}}
	var err error
	for i := 0; i < 50; i++ { // the bootstrap cluster-admin role may take a moment
		if _, err = oc.kube.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err == nil || apierrors.IsAlreadyExists(err) {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("grant %s cluster-admin: %w", clusterUser(name), err)
}

// waitHTTPReady waits until the API server at cfg answers /readyz.
func waitHTTPReady(ctx context.Context, cfg *rest.Config, p *Proc) error {
	tr, err := rest.TransportFor(cfg)
	if err != nil {
		return fmt.Errorf("transport: %w", err)
	}
	hc := &http.Client{Transport: tr, Timeout: 2 * time.Second}
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if resp, err := hc.Get(cfg.Host + "/readyz"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if p.Exited() {
			return fmt.Errorf("kube-apiserver exited:\n%s", p.Tail(4000))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return fmt.Errorf("kube-apiserver not ready after 2m:\n%s", p.Tail(4000))
}

// own is cluster name's own API server, or an error naming the fix.
func (e *Env) own(name string) (*ownCluster, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if oc := e.owned[name]; oc != nil {
		return oc, nil
	}
	return nil, fmt.Errorf("cluster %s has no API server of its own (fix: OwnAPIServer: true in its Cluster)", name)
}

// ClusterKube is an admin client of cluster name's API server: its own, or the control
// plane's for a cluster that shares it.
func (e *Env) ClusterKube(name string) kubernetes.Interface {
	if oc, err := e.own(name); err == nil {
		return oc.kube
	}
	return e.Kube
}

// StopClusterAPIServer kills cluster name's own API server, as a cluster that goes away.
func (e *Env) StopClusterAPIServer(name string) error {
	oc, err := e.own(name)
	if err != nil {
		return err
	}
	p := e.latest(oc.procName)
	if p == nil {
		return fmt.Errorf("cluster %s: its API server never started", name)
	}
	p.Kill()
	<-p.Wait()
	return nil
}

// StartClusterAPIServer starts cluster name's own API server again, as it was, and waits
// until it is ready.
func (e *Env) StartClusterAPIServer(ctx context.Context, name string) error {
	oc, err := e.own(name)
	if err != nil {
		return err
	}
	old := e.latest(oc.procName)
	if old == nil || !old.Exited() {
		return fmt.Errorf("cluster %s: its API server is not stopped", name)
	}
	p, err := e.Start(old.spec)
	if err != nil {
		return err
	}
	return waitHTTPReady(ctx, oc.admin, p)
}

// RevokeCluster deletes the binding of cluster name's identity: Argo CD's credentials for
// it are refused (403) from then on. RestoreCluster binds them again.
func (e *Env) RevokeCluster(ctx context.Context, name string) error {
	oc, err := e.own(name)
	if err != nil {
		return err
	}
	return oc.kube.RbacV1().ClusterRoleBindings().Delete(ctx, clusterUser(name), metav1.DeleteOptions{})
}

// RestoreCluster binds cluster name's identity to cluster-admin again.
func (e *Env) RestoreCluster(ctx context.Context, name string) error {
	oc, err := e.own(name)
	if err != nil {
		return err
	}
	return oc.grant(ctx, name)
}
