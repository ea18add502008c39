package spec

import "sigs.k8s.io/kustomize/kyaml/yaml"

// waves reads a phaseDeployment phase's extensions batchSize, batchWait and batchChecks
// (seed 002's waves in seed 000's dialect): batchSize bounds how many of the phase's
// members update at once (an integer or a percentage, as a RollingSync step's maxUpdate;
// the phase's percentage / maxUpdate stays how many it admits in all), batchWait holds the
// next batch until the last has been settled that long, batchChecks runs the phase's own
// checks on each batch before the next. Composed with spec.strategy steps, a step's
// maxUpdate and batchWait take the place of the phase's.
func (d *dec) waves(p *Phase, f map[string]*yaml.Node, path string) {
	if n := f["batchSize"]; n != nil {
		p.Throttle = d.intOrPercent(n, path+".batchSize", false)
	}
	p.BatchWait = d.batchWait(f["batchWait"], path+".batchWait")
	p.BatchChecks = d.boolean(f["batchChecks"], path+".batchChecks")
	if (p.BatchWait > 0 || p.BatchChecks) && f["batchSize"] == nil {
		n := f["batchWait"]
		if n == nil {
			n = f["batchChecks"]
		}
		d.fail(n, path+".batchSize", `give the phase a batchSize such as 1 or "25%" (its members then update in batches)`,
			"batchWait and batchChecks act between batches, and a phase without batchSize admits its members in one")
	}
}
