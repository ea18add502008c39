package jobhook

import (
	"fmt"
	"strings"

	"github.com/argoproj/argo-cd/v3/pkg/apis/application/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	sigsjson "sigs.k8s.io/json"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// clusterRESTConfig is the client config of t's cluster from its Argo CD cluster Secret s,
// read with Argo CD's own types (ClusterConfig, Cluster.RawRestConfig): a bearer token, a
// client certificate or a username and password, with tlsClientConfig. Credentials that
// run a program (execProviderConfig, awsAuthConfig: argocd-k8s-auth) are refused: the
// agent runs no exec plugin. A field of config this agent does not know is refused too.
// Errors name the Secret, the cluster and the field, never a value; so does the auth kind
// it returns, for the log.
func clusterRESTConfig(s *corev1.Secret, t hooks.Target) (*rest.Config, string, error) {
	where := fmt.Sprintf("cluster Secret %s/%s of cluster %s", s.Namespace, s.Name, t.Cluster)
	if s.Labels[contract.LabelSecretType] != contract.SecretTypeCluster {
		return nil, "", fmt.Errorf("%s: not labelled %s=%s", where, contract.LabelSecretType, contract.SecretTypeCluster)
	}
	if server := string(s.Data[contract.ClusterSecretServer]); server != t.Server {
		return nil, "", fmt.Errorf("%s: its server is %q, not %q (the Secret changed: the run is tried again)", where, server, t.Server)
	}
	raw := s.Data[contract.ClusterSecretConfig]
	if len(raw) == 0 {
		return nil, "", fmt.Errorf("%s: no %s (fix: give it Argo CD's config JSON with bearerToken or tlsClientConfig)", where, contract.ClusterSecretConfig)
	}
	var cc v1alpha1.ClusterConfig
	strict, err := sigsjson.UnmarshalStrict(raw, &cc)
	if err != nil {
		return nil, "", fmt.Errorf("%s: its %s is not Argo CD's cluster config JSON (fix: correct the Secret)", where, contract.ClusterSecretConfig)
	}
	if len(strict) > 0 {
		return nil, "", fmt.Errorf("%s: its %s has %s, which this agent does not know (fix: remove it, or use a per-phase Job)", where, contract.ClusterSecretConfig, unknownFields(strict))
	}
	if err := noExec(cc); err != nil {
		return nil, "", fmt.Errorf("%s: %w", where, err)
	}
	c := v1alpha1.Cluster{Server: t.Server, Name: string(s.Data[contract.ClusterSecretName]), Config: cc}
	cfg, err := c.RawRestConfig()
	if err != nil {
		return nil, "", fmt.Errorf("%s: its %s makes no client config (check its proxyUrl)", where, contract.ClusterSecretConfig)
	}
	cfg.UserAgent = "cmp-phase-agent"
	return cfg, authKind(cc), nil
}

// noExec refuses credentials the client would get by running a program.
func noExec(cc v1alpha1.ClusterConfig) error {
	const fix = "give the cluster Secret a bearerToken or a client certificate, or use a per-phase Job"
	switch {
	case cc.ExecProviderConfig != nil:
		return fmt.Errorf("config.execProviderConfig runs a program for credentials, which the agent never does (fix: %s)", fix)
	case cc.AWSAuthConfig != nil:
		return fmt.Errorf("config.awsAuthConfig runs argocd-k8s-auth for credentials, which the agent never does (fix: %s)", fix)
	}
	return nil
}

// unknownFields names the fields a strict decode did not know (their paths, no values).
func unknownFields(errs []error) string {
	var names []string
	for _, e := range errs {
		if fe, ok := e.(sigsjson.FieldError); ok {
			names = append(names, "config."+fe.FieldPath())
			continue
		}
		names = append(names, "an unknown field")
	}
	return strings.Join(names, ", ")
}

// authKind says how the config authenticates, for the log: never a value.
func authKind(cc v1alpha1.ClusterConfig) string {
	switch {
	case cc.BearerToken != "":
		return "bearerToken"
	case len(cc.CertData) > 0:
		return "clientCertificate"
	case cc.Username != "":
		return "basic"
	}
	return "none"
}
