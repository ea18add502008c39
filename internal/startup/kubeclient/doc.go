// Package kubeclient builds the API client configuration of cmp-phase's programs: from a
// kubeconfig when one is given, else from the pod's own service account.
package kubeclient
