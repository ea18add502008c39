// Package helm tests manifests/helm with Helm's own code: the argo-cd chart's values files
// merged as `helm -f` merges them, and the cmp-phase chart loaded and rendered by Helm's
// loader and engine, against the kustomize components they stand for.
//
// It is a module of its own because Helm's module would move the product's shared
// dependencies (controller-runtime, kyaml); hack/test.sh runs it next to the unit tests.
package helm
