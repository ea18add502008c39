// Package cmpserver is cmp-phase's in-process Config Management Plugin server: it implements
// argo-cd's cmpserver/apiclient ConfigManagementPluginServiceServer on the plugin socket the
// repo-server dials, receives the repository with util/cmp.ReceiveRepoStream into a private
// temp dir, and renders with state and inventory from informers. It honours the stream
// deadline, serves concurrent renders, keeps paths inside its work dir and cleans up.
package cmpserver
