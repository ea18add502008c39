package spec

import (
	"errors"
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// windowFields are the keys of one window.
var windowFields = []string{"name", "kind", "schedule", "duration", "start", "end", "blackoutDates", "timeZone", "hold"}

// windows reads a `windows:` list (the rollout's, next to phases / in spec.strategy, or a
// phase's): every window compiled, names unique within the list.
func (d *dec) windows(n *yaml.Node, path string) []Window {
	var out []Window
	seen := map[string]bool{}
	for i, wn := range d.seq(n, path) {
		p := fmt.Sprintf("%s[%d]", path, i)
		f := d.fields(wn, p, windowFields...)
		w := Window{
			Name: d.str(f["name"], p+".name"), Kind: d.str(f["kind"], p+".kind"),
			Schedule: d.str(f["schedule"], p+".schedule"), Duration: d.str(f["duration"], p+".duration"),
			Start: d.str(f["start"], p+".start"), End: d.str(f["end"], p+".end"),
			BlackoutDates: d.strList(f["blackoutDates"], p+".blackoutDates"),
			TimeZone:      d.str(f["timeZone"], p+".timeZone"), Hold: d.str(f["hold"], p+".hold"),
		}
		if err := w.Compile(); err != nil {
			var we *WindowError
			if errors.As(err, &we) {
				d.fail(windowNode(f, wn, we.Field), p+"."+we.Field, we.Fix, "%s", we.Msg)
			}
			continue
		}
		if seen[w.Name] {
			d.fail(f["name"], p+".name", "give every window its own name", "duplicate window name %q", w.Name)
		}
		seen[w.Name] = true
		out = append(out, w)
	}
	return out
}

// windowNode is the node of a window's field for the error's line (the window's own when
// the field is absent).
func windowNode(f map[string]*yaml.Node, wn *yaml.Node, field string) *yaml.Node {
	for k, n := range f {
		if len(field) >= len(k) && field[:len(k)] == k {
			return n
		}
	}
	return wn
}
