package contract

// The data keys of Argo CD's cluster Secret (LabelSecretType=SecretTypeCluster) the agent
// reads to reach a cluster for a per-cluster job hook. ClusterSecretConfig holds the
// credentials (ClusterConfig JSON): it is read by a direct GET when a Job needs it, never
// cached (the informers drop it), logged or told.
const (
	ClusterSecretName   = "name"
	ClusterSecretServer = "server"
	ClusterSecretConfig = "config"
)
