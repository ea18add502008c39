// Package clustersecrets reads Argo CD's cluster Secrets into the inventory the agent
// publishes (internal/inventory): name, server, project, labels and the short plain
// annotations — never the config (credentials), nor an annotation shaped like a copy of
// the object. A cluster whose name is taken or not a label value is left out, and said
// (Omission). Pure.
package clustersecrets
