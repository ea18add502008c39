package spec

import (
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// ordering reads a phase's or step's extensions order and spread (see targets.Ordering),
// compiled once through exprs; a bad expression is an error naming its field.
func (d *dec) ordering(f map[string]*yaml.Node, path string, exprs *targets.Cache) targets.Ordering {
	o := targets.Ordering{Order: d.str(f["order"], path+".order"), Spread: d.str(f["spread"], path+".spread")}
	for field, src := range map[string]string{"order": o.Order, "spread": o.Spread} {
		if f[field] != nil && strings.TrimSpace(src) == "" {
			d.fail(f[field], path+"."+field, `write an expression such as labels.region, or remove the field`, "is empty")
		}
	}
	if err := o.Compile(exprs); err != nil {
		field, msg, _ := strings.Cut(err.Error(), ": ")
		d.fail(f[field], path+"."+field, `give it a string or a number, e.g. labels.region or int(labels.weight ?? "0")`, "%s", msg)
	}
	return o
}
