package render

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// The parent's own annotations (contract.ParentAnnotationKeys: status, rollout, phase,
// admitted, …) are the agent's, written on the parent only; argocd-notifications' triggers
// and templates read them. On a child they would forge a rollout's state — a spec author
// could send "Stopped" or "Completed" notices with their own links (issue 47) — so a
// template that puts one on a child is refused, not stripped: the render fails closed and
// validate's dry run says which key and the fix.

// parentKeyFix is the fix of a refused key.
const parentKeyFix = "remove it from the template: the agent writes it on the parent, and on a child it would forge the rollout's state in notifications"

// refuseParentKeys refuses a template whose annotations (as written) hold one of the
// parent's keys, and reports whether a child's keys can differ from them (a templated key
// or a templatePatch): then each rendered child is checked (checkParentKeys).
func refuseParentKeys(tree map[string]any, patch string) (perChild bool, err error) {
	meta, _ := tree["metadata"].(map[string]any)
	ann, _ := meta["annotations"].(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(ann)) {
		if slices.Contains(contract.ParentAnnotationKeys, k) {
			return false, fmt.Errorf("template.metadata.annotations.%s is an annotation of the parent (fix: %s)", k, parentKeyFix)
		}
		perChild = perChild || strings.Contains(k, "{{")
	}
	return perChild || patch != "", nil
}

// checkParentKeys refuses a rendered child carrying one of the parent's annotations.
func checkParentKeys(child string, doc []byte) error {
	var app struct {
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(doc, &app); err != nil {
		return fmt.Errorf("child %s: %w", child, err)
	}
	for _, k := range contract.ParentAnnotationKeys {
		if _, ok := app.Metadata.Annotations[k]; ok {
			return fmt.Errorf("child %s: its annotation %s is an annotation of the parent (fix: %s)", child, k, parentKeyFix)
		}
	}
	return nil
}
