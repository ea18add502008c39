package contract

import "testing"

// TestClusterSecretKeys pins the cluster Secret keys: they are Argo CD's, not ours to change.
func TestClusterSecretKeys(t *testing.T) {
	for _, c := range [][2]string{
		{ClusterSecretName, "name"}, {ClusterSecretServer, "server"}, {ClusterSecretConfig, "config"},
	} {
		if c[0] != c[1] {
			t.Errorf("%q, want %q", c[0], c[1])
		}
	}
}
