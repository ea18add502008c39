// Package release builds cmp-phase's release artifacts without Docker: the static binaries,
// one multi-platform OCI image holding both (assembled with go-containerregistry from files
// on this machine, no base image), the CLI archives, the UI extension tarball, an SPDX SBOM,
// the SHA-256 sums, and copies of the install manifests that name the image by digest.
// hack/release.sh drives it; test/framework builds the host platform's image with it so the
// end-to-end suites run the binaries taken out of the image's layers. No product binary
// imports it.
package release
