package framework

import (
	"context"
	"fmt"
	"path/filepath"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ServiceAccountKubeconfig writes a kubeconfig that authenticates as ServiceAccount sa of
// Argo CD's namespace with a bound token (an hour), as a pod of it would, and returns its
// path: a program run with it has exactly the RBAC bound to sa.
func (e *Env) ServiceAccountKubeconfig(ctx context.Context, sa string) (string, error) {
	hour := int64(3600)
	tr, err := e.Kube.CoreV1().ServiceAccounts(ArgoNamespace).CreateToken(ctx, sa,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &hour}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("a token of %s: %w", sa, err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["test"] = &clientcmdapi.Cluster{Server: e.APIServerURL, CertificateAuthorityData: e.PKI.CACert}
	cfg.AuthInfos[sa] = &clientcmdapi.AuthInfo{Token: tr.Status.Token}
	cfg.Contexts["test"] = &clientcmdapi.Context{Cluster: "test", AuthInfo: sa, Namespace: ArgoNamespace}
	cfg.CurrentContext = "test"
	path := filepath.Join(e.Dir, "tmp", sa+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return "", fmt.Errorf("write the kubeconfig of %s: %w", sa, err)
	}
	return path, nil
}
