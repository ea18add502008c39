package helm

import (
	"slices"
	"testing"
)

// TestAnUpgradeNeverDeletesTheRBAC: `helm upgrade` deletes the objects of the release's last
// manifest that its new one lacks (kind, namespace and name: kube.Client's update). The
// RBAC lives in the cmp-phase release alone, so neither release's upgrade between any of
// its settings deletes an RBAC object:
//   - the argo-cd release: values.yaml then any subset of the option files in any order
//     sets no extraObjects, so the argo-cd chart makes no object of ours whatever it takes
//     (from values.yaml alone to values.yaml and any option file, or back);
//   - the cmp-phase release: from any combination of its toggles to any other, what Helm
//     would delete holds none of the 8 RBAC objects nor the agent's ConfigMap;
//   - the repo-server mounts every Secret optional, so while either release changes, Argo
//     CD's repo-server starts whatever the other holds.
func TestAnUpgradeNeverDeletesTheRBAC(t *testing.T) {
	for _, order := range orders(optionFiles(t)) {
		given := append([]string{repo("manifests", "helm", "values.yaml")}, order...)
		if objs, ok := merge(t, given)["extraObjects"]; ok {
			t.Errorf("-f %v sets extraObjects %v: the argo-cd release would own them, and a later file's list would replace them", names(given), objs)
		}
	}
	var manifests []map[string]bool
	for n := range 1 << len(toggles) {
		keys := map[string]bool{}
		for k := range mustRender(t, combination(n)) {
			keys[k] = true
		}
		manifests = append(manifests, keys)
	}
	kept := append(slices.Clone(rbac), "ConfigMap/argocd/cmp-phase-agent")
	for from, before := range manifests {
		for to, after := range manifests {
			for _, k := range kept {
				if before[k] && !after[k] {
					t.Errorf("helm upgrade cmp-phase from %v to %v deletes %s", combination(from), combination(to), k)
				}
			}
		}
	}
	rs := readYAML(t, "manifests", "helm", "values.yaml")["repoServer"].(map[string]any)
	withoutOptional(t, rs["volumes"].([]any))
	for _, c := range rs["extraContainers"].([]any) {
		envFrom, _ := dig(c, "envFrom").([]any)
		for _, from := range envFrom {
			if dig(from, "configMapRef", "optional") != true {
				t.Errorf("container %v: envFrom %v is not optional", dig(c, "name"), from)
			}
		}
	}
}
