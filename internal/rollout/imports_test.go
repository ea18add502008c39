package rollout

import (
	"os/exec"
	"strings"
	"testing"
)

// TestTheEngineDoesNoIO: the engine's import graph holds no I/O of ours — not the
// renderer, not the state ConfigMap's store, not the steering verbs — and none of our
// packages in it imports client-go (the Application types the spec reads are Argo CD's).
func TestTheEngineDoesNoIO(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const ours = "github.com/cmp-phase/cmp-phase/internal/"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, " ")
		if !strings.HasPrefix(pkg, ours) {
			continue
		}
		switch strings.TrimPrefix(pkg, ours) {
		case "render", "statestore", "steer", "agent", "cmpserver":
			t.Errorf("the engine imports %s", pkg)
		}
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, "k8s.io/client-go/") {
				t.Errorf("%s (in the engine's graph) imports %s", pkg, imp)
			}
		}
	}
}
