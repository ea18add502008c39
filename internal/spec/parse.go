package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/kustomize/kyaml/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/spec/templatecheck"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// MaxFileSize bounds a spec file; larger input is refused before parsing.
const MaxFileSize = 8 << 20

// unsupportedGenerators are ApplicationSet generators we refuse by name rather than skip.
var unsupportedGenerators = []string{
	"git", "matrix", "merge", "scmProvider", "clusterDecisionResource", "pullRequest", "plugin",
}

// Parse parses and validates the one ApplicationSet in a YAML stream; other documents are
// ignored. file names it in errors.
func Parse(file string, data []byte, exprs *targets.Cache) (*Spec, error) {
	return parse(file, data, exprs, nil)
}

// ParseChecked is Parse that also reports every hook over the installation's limits l
// (CheckLimits), in one list with the other problems: what `cmp-phase validate` tells.
func ParseChecked(file string, data []byte, exprs *targets.Cache, l Limits) (*Spec, error) {
	return parse(file, data, exprs, &l)
}

func parse(file string, data []byte, exprs *targets.Cache, l *Limits) (*Spec, error) {
	s, found, err := parseFile(file, data, exprs, l)
	if err == nil && !found {
		err = Errors{{File: file, Line: 1, Path: "(file)", Msg: "no ApplicationSet document", Fix: "add kind: ApplicationSet"}}
	}
	return s, err
}

// parseFile parses the ApplicationSet of one file; with l, hooks over those limits are
// problems too.
func parseFile(file string, data []byte, exprs *targets.Cache, l *Limits) (*Spec, bool, error) {
	if len(data) > MaxFileSize {
		return nil, true, Errors{{File: file, Line: 1, Path: "(file)", Msg: fmt.Sprintf("is %d bytes, over the limit of %d", len(data), MaxFileSize), Fix: "keep one ApplicationSet per file"}}
	}
	var found *yaml.Node
	yd := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := yd.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, true, Errors{{File: file, Line: yamlErrLine(err), Path: "(file)", Msg: "invalid YAML: " + oneLine(err.Error()), Fix: "fix the YAML syntax"}}
		}
		if len(doc.Content) == 0 || !isApplicationSet(doc.Content[0]) {
			continue
		}
		if found != nil {
			return nil, true, Errors{{File: file, Line: doc.Content[0].Line, Path: "(file)", Msg: "a second ApplicationSet", Fix: "keep one ApplicationSet per plugin directory"}}
		}
		found = doc.Content[0]
	}
	if found == nil {
		return nil, false, nil
	}
	found, err := expandAliases(found)
	if err != nil {
		msg, fix := err.Error(), "write the document without so many aliases"
		if ne, ok := err.(*nodesError); ok {
			msg, fix = ne.msg, ne.fix
		}
		return nil, true, Errors{{File: file, Line: 1, Path: "(file)", Msg: msg, Fix: fix}}
	}
	d := &dec{file: file}
	s := d.root(found, exprs)
	s.sites, s.Notes = d.sites, d.notes
	if l != nil {
		d.errs = append(d.errs, checkSites(file, d.sites, *l)...)
	}
	if len(d.errs) > 0 {
		slices.SortStableFunc(d.errs, func(a, b *Error) int { return a.Line - b.Line })
		return nil, true, d.errs
	}
	r, body, id, err := s.computeRevision()
	if err != nil {
		return nil, true, err
	}
	s.revision, s.revisionBody, s.revisionID = r, body, id
	return s, true, nil
}

func hasUnsupported(g *yaml.Node) bool {
	for i := 0; g.Kind == yaml.MappingNode && i < len(g.Content); i += 2 {
		if slices.Contains(unsupportedGenerators, g.Content[i].Value) {
			return true
		}
	}
	return false
}

func isApplicationSet(n *yaml.Node) bool {
	if n.Kind != yaml.MappingNode {
		return false
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "kind" {
			return n.Content[i+1].Value == "ApplicationSet"
		}
	}
	return false
}

func (d *dec) root(n *yaml.Node, exprs *targets.Cache) *Spec {
	s := &Spec{File: d.file}
	top := d.fields(n, "", "apiVersion", "kind", "metadata", "spec", "status")
	if v := d.str(top["apiVersion"], "apiVersion"); v != "argoproj.io/v1alpha1" {
		d.fail(n, "apiVersion", "write apiVersion: argoproj.io/v1alpha1", "must be argoproj.io/v1alpha1, not %q", v)
	}
	if v := d.str(top["kind"], "kind"); v != "ApplicationSet" {
		d.fail(n, "kind", "write kind: ApplicationSet", "must be ApplicationSet, not %q", v)
	}
	meta := d.fields(d.required(top, n, "", "metadata", "give the rollout a name"), "metadata")
	nameNode := d.required(meta, top["metadata"], "metadata", "name", "set metadata.name")
	s.Name = d.str(nameNode, "metadata.name")
	d.rolloutName(nameNode, s.Name)
	s.Namespace = d.str(meta["namespace"], "metadata.namespace")
	d.minVersion(meta)
	spec := d.required(top, n, "", "spec", "add spec.generators and spec.template")
	if spec == nil {
		return s
	}
	f := d.fields(spec, "spec", "generators", "template", "templatePatch", "goTemplate", "goTemplateOptions",
		"strategy", "syncPolicy", "preservedFields", "ignoreApplicationDifferences", "applyNestedSelectors")
	s.GoTemplate = d.boolean(f["goTemplate"], "spec.goTemplate")
	s.GoTemplateOptions = d.strList(f["goTemplateOptions"], "spec.goTemplateOptions")
	s.TemplatePatch = d.str(f["templatePatch"], "spec.templatePatch")
	if sp := d.fields(f["syncPolicy"], "spec.syncPolicy"); sp["preserveResourcesOnDeletion"] != nil {
		s.PreserveResourcesOnDeletion = d.boolean(sp["preserveResourcesOnDeletion"], "spec.syncPolicy.preserveResourcesOnDeletion")
	}
	strategyGen, strategyPath := d.generators(s, d.required(f, spec, "spec", "generators", "add a list or clusters generator"))
	d.template(s, d.required(f, spec, "spec", "template", "add spec.template with metadata.name and spec"), f["templatePatch"])
	d.strategy(s, f["strategy"], strategyGen, strategyPath, exprs)
	return s
}

// rolloutName refuses a metadata.name the names derived from it cannot carry: the
// rollout's ConfigMaps are <name>-state and <name>-plan (<name>-plan-<k> per shard), DNS
// subdomains, and every child and plan is labelled cmp-phase.io/rollout=<name>, a label
// value. A dotted name such as web.prod is both; an uppercase or longer name would render,
// and the API server would refuse the state, plan or children later.
func (d *dec) rolloutName(n *yaml.Node, name string) {
	if n == nil || name == "" && n.Kind != yaml.ScalarNode {
		return // reported already
	}
	problems := validation.IsValidLabelValue(name)
	if name == "" {
		problems = append(problems, "must not be empty")
	}
	for _, derived := range []string{name, contract.StateConfigMap(name), contract.PlanConfigMap(name)} {
		problems = append(problems, validation.IsDNS1123Subdomain(derived)...)
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		d.fail(n, "metadata.name", "use at most 63 lowercase letters, digits, '-' and '.', starting and ending with a letter or digit",
			"%q cannot name a rollout (%s): cmp-phase names the rollout's ConfigMaps %s and %s and labels each child %s=%s",
			name, strings.Join(slices.Compact(problems), "; "), contract.StateConfigMap("<name>"), contract.PlanConfigMap("<name>"), contract.LabelRollout, "<name>")
	}
}

// generators parses spec.generators and returns the deploymentStrategy node, if any.
func (d *dec) generators(s *Spec, n *yaml.Node) (strategy *yaml.Node, strategyPath string) {
	for i, g := range d.seq(n, "spec.generators") {
		path := fmt.Sprintf("spec.generators[%d]", i)
		d.fields(g, path) // shape check
		var gen Generator
		for j := 0; g.Kind == yaml.MappingNode && j+1 < len(g.Content); j += 2 {
			if v := d.generatorField(&gen, g, path, g.Content[j].Value, g.Content[j+1]); v != nil {
				if strategy != nil {
					d.fail(v, path+".deploymentStrategy", "keep one deploymentStrategy: its phases order the children of every generator", "only one generator may carry a deploymentStrategy")
				}
				strategy, strategyPath = v, path+".deploymentStrategy"
			}
		}
		if gen.List != nil && gen.Clusters != nil {
			d.fail(g, path, "split them into two generators", "has both list and clusters")
		}
		if gen.List == nil && gen.Clusters == nil && !hasUnsupported(g) {
			d.fail(g, path, "add a list or clusters generator", "has no generator")
			continue
		}
		s.Generators = append(s.Generators, gen)
	}
	if n != nil && len(s.Generators) == 0 && len(d.errs) == 0 {
		d.fail(n, "spec.generators", "add a list or clusters generator", "is empty")
	}
	return strategy, strategyPath
}

// generatorField reads one field (key: v) of the generator g at path into gen; it returns
// v when the field is a deploymentStrategy, which the caller keeps (one per spec).
func (d *dec) generatorField(gen *Generator, g *yaml.Node, path, key string, v *yaml.Node) (strategy *yaml.Node) {
	switch key {
	case "list":
		gen.List = d.listGenerator(v, path+".list")
	case "clusters":
		gen.Clusters = d.clustersGenerator(v, path+".clusters")
	case "deploymentStrategy":
		return v
	default:
		if slices.Contains(unsupportedGenerators, key) {
			d.fail(g, path+"."+key, "use a list or clusters generator", "generator %q is not supported by cmp-phase", key)
		} else {
			d.fail(g, path+"."+key, "use list, clusters and deploymentStrategy", "unknown generator field %q", key)
		}
	}
	return nil
}

func (d *dec) listGenerator(n *yaml.Node, path string) *ListGenerator {
	f := d.fields(n, path, "elements", "elementsYaml", "template")
	if f["template"] != nil {
		d.fail(f["template"], path+".template", "move it to spec.template", "generator templates are not supported")
	}
	g := &ListGenerator{}
	for i, e := range d.seq(f["elements"], path+".elements") {
		var m map[string]any
		d.decodeAsKubectl(e, fmt.Sprintf("%s.elements[%d]", path, i), &m)
		if m == nil && e.Kind != yaml.MappingNode {
			d.fail(e, fmt.Sprintf("%s.elements[%d]", path, i), "write key: value pairs", "must be a mapping")
		}
		g.Elements = append(g.Elements, m)
	}
	if y := d.str(f["elementsYaml"], path+".elementsYaml"); y != "" {
		var more []map[string]any
		if err := sigsyaml.Unmarshal([]byte(y), &more); err != nil {
			d.fail(f["elementsYaml"], path+".elementsYaml", "write a YAML list of mappings", "%s", oneLine(err.Error()))
		}
		g.Elements = append(g.Elements, more...)
	}
	return g
}

func (d *dec) clustersGenerator(n *yaml.Node, path string) *ClustersGenerator {
	f := d.fields(n, path, "selector", "values", "template", "flatList")
	if f["template"] != nil || f["flatList"] != nil {
		d.fail(n, path, "remove the field", "generator templates and flatList are not supported")
	}
	g := &ClustersGenerator{Values: d.strMap(f["values"], path+".values")}
	if sel := f["selector"]; sel != nil {
		sf := d.fields(sel, path+".selector", "matchLabels", "matchExpressions")
		g.Selector.MatchLabels = d.strMap(sf["matchLabels"], path+".selector.matchLabels")
		g.Selector.MatchExpressions = d.requirements(sf["matchExpressions"], path+".selector.matchExpressions")
		if err := g.Selector.Compile(); err != nil {
			d.fail(sel, path+".selector", "", "%s", err)
		}
	}
	return g
}

// template hands spec.template to the template check (internal/spec/appset, through
// templatecheck), which decodes it into an Argo CD Application exactly as the ApplicationSet
// controller does, keeping only the fields Argo CD knows; an unknown field is an error.
func (d *dec) template(s *Spec, n, patch *yaml.Node) {
	if n == nil {
		return
	}
	var raw any
	d.decodeAsKubectl(n, "spec.template", &raw)
	b, err := json.Marshal(raw)
	if err != nil {
		d.fail(n, "spec.template", "", "%s", oneLine(err.Error()))
		return
	}
	tree, problems := templatecheck.Check(templatecheck.Input{Raw: b, Patch: s.TemplatePatch, GoTemplate: s.GoTemplate, GoTemplateOptions: s.GoTemplateOptions})
	for _, p := range problems {
		at := n
		if p.Field != "" {
			at = fieldNode(n, patch, p.Field)
		}
		d.fail(at, p.Path, p.Fix, "%s", p.Msg)
	}
	if tree == nil {
		return
	}
	s.Template = tree
	s.TemplateLines = templateLines(n, patch)
}

// DecodeTree decodes a JSON object keeping numbers as json.Number.
func DecodeTree(b []byte) (map[string]any, error) { return templatecheck.DecodeTree(b) }

func yamlErrLine(err error) int {
	var line int
	if _, scanErr := fmt.Sscanf(strings.TrimPrefix(err.Error(), "yaml: "), "line %d:", &line); scanErr == nil {
		return line
	}
	return 1
}
