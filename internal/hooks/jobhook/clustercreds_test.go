package jobhook

import (
	"encoding/base64"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/hooks"
)

// Credential values the tests plant: none may reach an error or a log line.
const (
	testToken    = "tok-3f9a-never-told"
	testPassword = "pw-81c2-never-told"
	testKey      = "-----BEGIN EC PRIVATE KEY-----\nkey-77d1-never-told\n-----END EC PRIVATE KEY-----\n"
)

var prod1 = hooks.Target{Cluster: "prod-1", Server: "https://prod-1.example:6443", Project: "apps", Namespace: "guestbook"}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// credSecret is Argo CD's cluster Secret of prod1 with config.
func credSecret(config string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-prod-1", Namespace: "argocd", Labels: map[string]string{contract.LabelSecretType: contract.SecretTypeCluster}},
		Data:       map[string][]byte{contract.ClusterSecretName: []byte("prod-1"), contract.ClusterSecretServer: []byte(prod1.Server), contract.ClusterSecretConfig: []byte(config)},
	}
}

func TestClusterRESTConfig(t *testing.T) {
	for _, tc := range []struct {
		name, config string
		auth         string
		check        func(*rest.Config) bool
	}{
		{"bearer token", `{"bearerToken":"` + testToken + `","tlsClientConfig":{"caData":"` + b64("CA") + `","serverName":"prod"}}`, "bearerToken",
			func(c *rest.Config) bool {
				return c.BearerToken == testToken && string(c.CAData) == "CA" && c.ServerName == "prod" && !c.Insecure && c.ExecProvider == nil
			}},
		{"client certificate", `{"tlsClientConfig":{"caData":"` + b64("CA") + `","certData":"` + b64("CERT") + `","keyData":"` + b64(testKey) + `"}}`, "clientCertificate",
			func(c *rest.Config) bool {
				return string(c.CertData) == "CERT" && string(c.KeyData) == testKey && c.BearerToken == ""
			}},
		{"insecure", `{"bearerToken":"` + testToken + `","tlsClientConfig":{"insecure":true}}`, "bearerToken",
			func(c *rest.Config) bool { return c.Insecure && len(c.CAData) == 0 }},
		{"basic", `{"username":"admin","password":"` + testPassword + `","tlsClientConfig":{"insecure":false}}`, "basic",
			func(c *rest.Config) bool { return c.Username == "admin" && c.Password == testPassword }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, auth, err := clusterRESTConfig(credSecret(tc.config), prod1)
			if err != nil || auth != tc.auth || cfg.Host != prod1.Server || cfg.UserAgent != "cmp-phase-agent" || !tc.check(cfg) {
				t.Fatalf("got %+v %q %v", cfg, auth, err)
			}
		})
	}
}

// TestClusterRESTConfigRefuses: credentials that run a program, fields this agent does not
// know, and a Secret that is not the cluster's are refused, naming the Secret, cluster and
// field, never a value.
func TestClusterRESTConfigRefuses(t *testing.T) {
	wrongLabel := credSecret(`{}`)
	wrongLabel.Labels = nil
	moved := credSecret(`{}`)
	moved.Data[contract.ClusterSecretServer] = []byte("https://elsewhere")
	for _, tc := range []struct {
		name string
		s    *corev1.Secret
		want string
	}{
		{"exec", credSecret(`{"bearerToken":"` + testToken + `","execProviderConfig":{"command":"/bin/steal","args":["` + testPassword + `"],"apiVersion":"client.authentication.k8s.io/v1beta1"}}`),
			"cluster Secret argocd/cluster-prod-1 of cluster prod-1: config.execProviderConfig runs a program for credentials, which the agent never does (fix: give the cluster Secret a bearerToken"},
		{"aws", credSecret(`{"awsAuthConfig":{"clusterName":"prod","roleARN":"arn:aws:iam::1:role/x"},"tlsClientConfig":{"caData":"` + b64("CA") + `"}}`),
			"config.awsAuthConfig runs argocd-k8s-auth"},
		{"unknown field", credSecret(`{"bearerToken":"` + testToken + `","azure":{"secret":"` + testPassword + `"}}`),
			"its config has config.azure, which this agent does not know"},
		{"not json", credSecret(`{"bearerToken":"` + testToken), "its config is not Argo CD's cluster config JSON"},
		{"no config", credSecret(""), "argocd/cluster-prod-1 of cluster prod-1: no config"},
		{"not a cluster Secret", wrongLabel, "not labelled argocd.argoproj.io/secret-type=cluster"},
		{"another server", moved, `its server is "https://elsewhere", not "https://prod-1.example:6443"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := clusterRESTConfig(tc.s, prod1)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			assertNoCredential(t, err.Error())
		})
	}
}

// assertNoCredential fails when out holds any credential value a test planted.
func assertNoCredential(t *testing.T, out string) {
	t.Helper()
	for _, v := range []string{testToken, testPassword, "key-77d1-never-told", b64(testKey), "/bin/steal"} {
		if strings.Contains(out, v) {
			t.Fatalf("a credential reached the output: %q in %s", v, out)
		}
	}
}
