package main

import (
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestKrewManifest: the krew manifest installs this binary under the name kubectl runs for
// `kubectl cmp-phase` (kubectl-cmp_phase), on every platform.
func TestKrewManifest(t *testing.T) {
	b, err := os.ReadFile("../../plugins/cmp-phase.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Spec struct {
			Version          string `json:"version"`
			ShortDescription string `json:"shortDescription"`
			Platforms        []struct {
				URI   string `json:"uri"`
				Bin   string `json:"bin"`
				Files []struct {
					From string `json:"from"`
					To   string `json:"to"`
				} `json:"files"`
			} `json:"platforms"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Kind != "Plugin" || m.APIVersion != "krew.googlecontainertools.github.com/v1alpha2" || m.Metadata.Name != "cmp-phase" || m.Spec.ShortDescription == "" || len(m.Spec.Platforms) < 2 {
		t.Fatalf("%+v", m)
	}
	for _, p := range m.Spec.Platforms {
		if p.Bin != "kubectl-cmp_phase" || len(p.Files) == 0 || p.Files[0].From != "cmp-phase" || p.Files[0].To != p.Bin || !strings.Contains(p.URI, m.Spec.Version) {
			t.Errorf("platform %+v: want the cmp-phase binary as kubectl-cmp_phase", p)
		}
	}
}
