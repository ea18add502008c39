// Package inventory is the list of Argo CD clusters the renderer may target: name, server,
// project, labels and annotations — never credentials. The agent publishes it from cluster
// Secrets into a ConfigMap; tests and local runs read it from a file.
package inventory
