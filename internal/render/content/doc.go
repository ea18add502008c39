// Package content computes a digest of what children deploy from the parent's repository:
// the files under their source paths, the paths of Argo CD's manifest-generate-paths
// annotation and the "$ref" Helm value files of multi-source children. A commit that
// changes any of those files changes the digest and so starts a phased rollout; a commit
// that changes none of them does not.
//
// paths.go is pure: it turns the annotation and value files into repository patterns with
// Argo CD's semantics. The Digester does file I/O: it reads the repository checked out at a
// commit, only through an os.Root so that no path or symbolic link makes it read outside
// the checkout, and caches digests by commit and patterns.
package content
