package spec

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The canonical failure policies of a hook (seed 000's spellings).
const (
	FailurePolicyFail   = "fail"
	FailurePolicyIgnore = "ignore"
	FailurePolicyAbort  = "abort"
	FailurePolicyRetry  = "retry"
)

// failurePolicies maps every accepted spelling, lower-cased, to its canonical form: seed
// 000's fail, ignore, abort and seed 004's Abort, Retry, Ignore, with its Continue read as
// ignore (the deployment goes on).
var failurePolicies = map[string]string{
	"fail": FailurePolicyFail, "ignore": FailurePolicyIgnore, "continue": FailurePolicyIgnore,
	"abort": FailurePolicyAbort, "retry": FailurePolicyRetry,
}

// CanonicalFailurePolicy returns the canonical form of a failurePolicy spelling, in any
// case, and whether it is one.
func CanonicalFailurePolicy(v string) (string, bool) {
	c, ok := failurePolicies[strings.ToLower(v)]
	return c, ok
}

// failurePolicy reads a hook's failurePolicy (default fail) in its canonical form; a
// spelling other than the canonical one is noted, so `validate` can say how it is read.
func (d *dec) failurePolicy(n *yaml.Node, path string) string {
	if n == nil {
		return FailurePolicyFail
	}
	v := d.str(n, path)
	c, ok := CanonicalFailurePolicy(v)
	if !ok {
		d.fail(n, path, "use one of: fail, ignore, abort, retry (any case; Continue means ignore)", "unknown value %q", v)
		return FailurePolicyFail
	}
	if v != c {
		d.notes = append(d.notes, &Error{File: d.file, Line: n.Line, Path: path, Msg: fmt.Sprintf("%q is read as %s", v, c)})
	}
	return c
}
