package agent

import (
	"k8s.io/client-go/kubernetes"
)

// jobClients reach the control cluster, where job hooks run: the agent's own client and
// namespace. No cluster Secret is read for jobs: a per-cluster job hook is refused (it
// would reach any registered cluster with Argo CD's credentials, bypassing the AppProject).
type jobClients struct {
	kube      kubernetes.Interface
	namespace string // the agent's (Argo CD's): per-phase Jobs
}

func newJobClients(kube kubernetes.Interface, namespace string) jobClients {
	return jobClients{kube: kube, namespace: namespace}
}

// Control is the agent's own client and namespace.
func (j jobClients) Control() (kubernetes.Interface, string) { return j.kube, j.namespace }
