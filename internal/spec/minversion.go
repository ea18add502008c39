package spec

import (
	"golang.org/x/mod/semver"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/version"
)

// running is the version a spec's min-version is held against: this binary's, or in a
// development build the release its source tree is (version.Judged; a variable for tests).
var running = version.Judged

// minVersion refuses a spec whose metadata.annotations ask for a newer cmp-phase than
// this one (seed 000's argocd.argoproj.io/min-version), or name no semantic version. A
// development build is held to the release its source tree is (version.Base). The renderer,
// the agent's re-render and validate all parse, so all refuse alike.
func (d *dec) minVersion(meta map[string]*yaml.Node) {
	anns := d.fields(meta["annotations"], "metadata.annotations")
	n := anns[contract.AnnotationMinVersion]
	if n == nil {
		return
	}
	path := "metadata.annotations." + contract.AnnotationMinVersion
	raw := d.str(n, path)
	want := version.Canonical(raw)
	if want == "" {
		d.fail(n, path, `write a semantic version such as "v1.2.0"`, "invalid version %q", raw)
		return
	}
	if have := running(); semver.Compare(want, have) > 0 {
		d.fail(n, path, "upgrade cmp-phase (the plugin sidecar and the agent) to "+want+" or newer",
			"the spec needs cmp-phase %s or newer; this is %s", want, have)
	}
}
