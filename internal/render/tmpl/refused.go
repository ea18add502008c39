package tmpl

import (
	"errors"
	"fmt"

	yamlv3 "go.yaml.in/yaml/v3"
)

const (
	changesEachRender = "its result changes on every render, so the child would differ each time Argo CD renders the parent and never settle, and no revision would ever equal the deployed one"
	fixDeterministic  = "compute the value outside the template (a generator value, a Secret the child reads) and pass it in"
)

// refused are the functions of Argo CD's set that cmp-phase does not run, with why: a
// phased rollout needs a render to be a function of its inputs, and one call of these
// costs more than a whole render should.
var refused = map[string]string{
	"now": changesEachRender, "ago": changesEachRender, "uuidv4": changesEachRender, "shuffle": changesEachRender,
	"randAlpha": changesEachRender, "randAlphaNum": changesEachRender, "randAscii": changesEachRender,
	"randNumeric": changesEachRender, "randBytes": changesEachRender, "randInt": changesEachRender,
	"bcrypt": changesEachRender, "htpasswd": changesEachRender, "encryptAES": changesEachRender,
	"genPrivateKey": changesEachRender, "genCA": changesEachRender, "genCAWithKey": changesEachRender,
	"genSelfSignedCert": changesEachRender, "genSelfSignedCertWithKey": changesEachRender,
	"genSignedCert": changesEachRender, "genSignedCertWithKey": changesEachRender,
	"derivePassword": "one call costs 64 MiB and about a fifth of a second (scrypt), more than a whole render may",
	"call":           "template data holds no functions",
}

// ErrRefused is what a template that cmp-phase will not run returns — a refused function,
// a literal that already exceeds the Bounds — with where and the fix.
var ErrRefused = errors.New("template refused")

// refusal is the error of a refused function.
func refusal(name, reason string) error {
	fix := fixDeterministic
	if name == "derivePassword" || name == "call" {
		fix = "remove it from the template"
	}
	return fmt.Errorf("%w: function %s: %s (fix: %s)", ErrRefused, name, reason, fix)
}

// errAliases refuses YAML aliases in what a template decodes (fromYaml, a templatePatch): each expands to a copy of what it
// names, so a few lines can stand for billions of nodes.
var errAliases = errors.New("YAML aliases are refused (*name): each expands to a copy of what it names (fix: write the values out)")

// noAliases refuses a YAML text that holds an alias, before it is decoded.
func noAliases(s string) error {
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal([]byte(s), &doc); err != nil {
		return nil // the decoder reports it
	}
	if hasAlias(&doc) {
		return errAliases
	}
	return nil
}

func hasAlias(n *yamlv3.Node) bool {
	if n.Kind == yamlv3.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c) {
			return true
		}
	}
	return false
}
