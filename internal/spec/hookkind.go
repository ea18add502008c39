package spec

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// HookKind is the spec half of a hook kind, the `type:` of a pre-hook, check or post-hook
// (http, command): how its block is read and validated, its limits, its traits, and which
// of its fields are templated. The run half is internal/hooks.Kind, which embeds this one,
// so the CLI's validate, the plugin, the engine and the agent all ask the same value.
//
// A kind is registered once (RegisterHookKind, which internal/hooks.Register calls) and
// read through its HookReader, so it can live in its own package (NewHookKind).
type HookKind interface {
	// Name is the kind's `type:` value, and the key of its block in a hook, in the spec and
	// in the plan ("http": {...}).
	Name() string
	// MaxTimeout is the longest timeout a hook of this kind may ask for when the
	// installation has no setting for it (Limits names http's and command's), and the fix
	// told to a spec that asks for more.
	MaxTimeout() (time.Duration, string)
	// Traits are what the parser and the engine know of the kind: they ask these, never
	// its name.
	Traits() HookTraits
	// Parse reads and validates the kind's block of the hook r reads, reporting every
	// problem through r with its line and field path. It returns nil when the block is
	// missing or unusable (having reported why).
	Parse(r *HookReader) HookBlock
	// Decode reads the kind's block back from the plan, as Hook.MarshalJSON wrote it.
	Decode(b []byte) (HookBlock, error)
	// Half is the spec half itself, as NewHookKind made it: a whole kind embedding it
	// (internal/hooks.Kind) answers with its half, so RegisterHookKind knows one from the
	// other.
	Half() HookKind
}

// HookTraits are what a kind declares of itself for the parser and the engine, which
// ask these rather than its name. Whether a hook runs per cluster or per phase is not a
// trait: it follows from the fields the kind templates (Hook.PerCluster).
type HookTraits struct {
	// DuringSoak: a check of this kind may say `during: soak` and is then measured through
	// its phase's soak (its block says so: SoakBlock); every other kind refuses `during`.
	DuringSoak bool
	// InconclusiveFix, when set, says the kind's runs may end Inconclusive and that the
	// engine then pauses the rollout for a person, telling them this first (e.g. "look at
	// the metric"). A kind without one has an Inconclusive run judged as a failure.
	InconclusiveFix string
}

// DuringSoak is the one value of a check's `during`: measured through the phase's soak.
const DuringSoak = "soak"

// SoakBlock is a block that may be measured through its phase's soak (a kind with the
// DuringSoak trait).
type SoakBlock interface {
	HookBlock
	// DuringSoak reports whether the hook is measured through the soak.
	DuringSoak() bool
}

// DuringSoak reports whether h is a check measured through its phase's soak.
func (h Hook) DuringSoak() bool {
	b, ok := h.Block.(SoakBlock)
	return ok && b.DuringSoak()
}

// InconclusiveFix is what a person is told to look at when a run of h ends Inconclusive
// and the engine pauses for them; "" when h's kind does not pause (HookTraits).
func (h Hook) InconclusiveFix() string {
	if k, ok := HookKindOf(h.Type); ok {
		return k.Traits().InconclusiveFix
	}
	return ""
}

// HookBlock is a kind's own block of a hook (`http:` is an *httphook.Block, `command:` a
// *commandhook.Block), as its kind parsed it; it marshals to JSON as the plan carries it.
type HookBlock interface {
	// Fill returns a copy of the block with f applied to every string value it holds
	// (the names of map entries, such as header and variable names, are not values). Those
	// are exactly the fields templates fill: hooks.Template fills them and PerCluster reads
	// them, so whatever a kind templates also decides where it runs.
	Fill(f func(string) string) HookBlock
}

// hookNode is a hook's mapping as a kind's parse sees it.
type hookNode struct {
	node   *yaml.Node            // the hook, for the line of a missing block
	fields map[string]*yaml.Node // its fields by key; the kind's block is fields[kind]
	path   string                // its field path, e.g. spec.…phases[0].checks[1]
	check  bool                  // a check, else a pre- or post-hook
}

// hookKinds are the hook kinds a spec may use, in the order errors list them: the order
// they were registered (RegisterHookKind), which internal/hooks/all decides.
var hookKinds []HookKind

// RegisterHookKind lets specs use kind k, from now on. It is called while the program
// starts (internal/hooks.Register, from internal/hooks/all). A kind whose spec half is one
// already registered (a half registered alone, then the whole kind built on it) takes its place; a
// second kind of the same name otherwise is a programming error, reported by a panic
// before anything runs.
func RegisterHookKind(k HookKind) {
	for i, old := range hookKinds {
		if old.Name() != k.Name() {
			continue
		}
		if k.Half() == old {
			hookKinds[i] = k
			return
		}
		panic(fmt.Sprintf("hook kind %q registered twice", k.Name()))
	}
	hookKinds = append(hookKinds, k)
}

// HookKinds are the hook kinds a spec may use.
func HookKinds() []HookKind { return append([]HookKind(nil), hookKinds...) }

// HookKindOf is the kind whose `type:` is name.
func HookKindOf(name string) (HookKind, bool) {
	for _, k := range hookKinds {
		if k.Name() == name {
			return k, true
		}
	}
	return nil, false
}

func hookKindNames() []string {
	names := make([]string, len(hookKinds))
	for i, k := range hookKinds {
		names[i] = k.Name()
	}
	return names
}

// blockKind is a HookKind whose block is a *B (NewHookKind).
type blockKind[B any, P blockOf[B]] struct {
	name       string
	maxTimeout time.Duration
	timeoutFix string
	traits     HookTraits
	parseBlock func(r *HookReader) P
	setting    string                     // HookKindDef.TimeoutSetting
	limit      func(Limits) time.Duration // HookKindDef.LimitTimeout
}

// TimeoutLimit is l's limit on the kind's timeout and its setting, when it has one.
func (k *blockKind[B, P]) TimeoutLimit(l Limits) (time.Duration, string) {
	if k.setting == "" || k.limit == nil {
		return 0, ""
	}
	return k.limit(l), k.setting
}

// blockOf is the pointer to a block type B, which is what a HookBlock is.
type blockOf[B any] interface {
	*B
	HookBlock
}

func (k *blockKind[B, P]) Name() string { return k.name }

// Half is the spec half itself; a whole kind embedding it says so through it.
func (k *blockKind[B, P]) Half() HookKind { return k }

func (k *blockKind[B, P]) MaxTimeout() (time.Duration, string) { return k.maxTimeout, k.timeoutFix }

func (k *blockKind[B, P]) Traits() HookTraits { return k.traits }

func (k *blockKind[B, P]) Parse(r *HookReader) HookBlock {
	if b := k.parseBlock(r); b != nil {
		return b
	}
	return nil // not a nil *B in a non-nil HookBlock
}

func (k *blockKind[B, P]) Decode(b []byte) (HookBlock, error) {
	p := P(new(B))
	if err := json.Unmarshal(b, p); err != nil {
		return nil, err
	}
	return p, nil
}

// PerCluster reports whether a hook (pre-hook, check or post-hook) runs once per admitted
// cluster: when any field its kind templates is templated with the cluster ({{name}},
// {{server}}, {{metadata.labels.x}}, …); secret references ({{.secrets.<name>.<key>}}) and
// the phase's own variables ({{.appset.name}}, {{.phase.name}}) do not count. Otherwise it
// runs once per phase. It asks every kind the same way, through HookBlock.Fill; validation
// (HookVarProblem) and the run's templating (hooks.Template) read the same placeholders.
func (h Hook) PerCluster() bool {
	per := false
	for _, name := range h.Placeholders() {
		per = per || !strings.HasPrefix(name, ".")
	}
	return per
}

// HookPlaceholder matches one placeholder of a hook field, {{ name }}; group 1 is the name.
var HookPlaceholder = regexp.MustCompile(`\{\{\s*([^{}]+?)\s*\}\}`)

// Placeholders are the names of every placeholder in the fields the hook's kind templates.
func (h Hook) Placeholders() []string {
	var out []string
	if h.Block != nil {
		h.Block.Fill(func(s string) string {
			for _, m := range HookPlaceholder.FindAllStringSubmatch(s, -1) {
				out = append(out, m[1])
			}
			return s
		})
	}
	return out
}

// Hook template variables: the phase's, and a cluster's (a hook using one runs per cluster).
var (
	phaseVars   = []string{".appset.name", ".appset.namespace", ".phase.name", ".track.name"} // .track.name: "" before a split
	clusterVars = []string{"name", "server", "project"}
)

// ClusterVar reports whether name is a cluster field: name, server, project,
// metadata.labels.<key> or metadata.annotations.<key>.
func ClusterVar(name string) bool {
	for _, prefix := range []string{"metadata.labels.", "metadata.annotations."} {
		if key, ok := strings.CutPrefix(name, prefix); ok {
			return key != ""
		}
	}
	return slices.Contains(clusterVars, name)
}

// HookVarProblem says what is wrong with placeholder name in a hook, "" when it is one a
// run can fill: a phase variable, a cluster field, or a secret reference.
func HookVarProblem(name string) string {
	if ref, ok := strings.CutPrefix(name, ".secrets."); ok {
		if secret, key, found := strings.Cut(ref, "."); !found || secret == "" || key == "" {
			return fmt.Sprintf("secret reference %q must be {{.secrets.<name>.<key>}}", name)
		}
		return ""
	}
	if slices.Contains(phaseVars, name) || ClusterVar(name) {
		return ""
	}
	return fmt.Sprintf("unknown template variable %q", name)
}

// HookVarFix is the fix told for a placeholder HookVarProblem refuses.
const HookVarFix = "use .appset.name, .appset.namespace, .phase.name, .track.name, .secrets.<name>.<key>, or a cluster field (the hook then runs once per admitted cluster): name, server, project, metadata.labels.<key>, metadata.annotations.<key>"

// hookJSON is a hook as the plan carries it, but for its block.
type hookJSON struct {
	Name          string        `json:"name"`
	Type          string        `json:"type"`
	Timeout       time.Duration `json:"timeout"`
	FailurePolicy string        `json:"failurePolicy"`
	RetryFor      time.Duration `json:"retryFor,omitempty"`
}

// MarshalJSON writes the hook as the plan carries it: its fields, then its block under its
// kind's name ("http": {...}).
func (h Hook) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(hookJSON{Name: h.Name, Type: h.Type, Timeout: h.Timeout, FailurePolicy: h.FailurePolicy, RetryFor: h.RetryFor})
	if err != nil || h.Block == nil {
		return b, err
	}
	key, err := json.Marshal(h.Type)
	if err != nil {
		return nil, err
	}
	block, err := json.Marshal(h.Block)
	if err != nil {
		return nil, fmt.Errorf("hook %s: %w", h.Name, err)
	}
	out := append(b[:len(b)-1], ',')
	out = append(append(append(out, key...), ':'), block...)
	return append(out, '}'), nil
}

// UnmarshalJSON reads a hook from the plan: its block is read by the kind its type names;
// a type this build does not know leaves the hook without a block (it then errors when
// run, saying so).
func (h *Hook) UnmarshalJSON(b []byte) error {
	var base hookJSON
	if err := json.Unmarshal(b, &base); err != nil {
		return err
	}
	*h = Hook{Name: base.Name, Type: base.Type, Timeout: base.Timeout, FailurePolicy: base.FailurePolicy, RetryFor: base.RetryFor}
	k, ok := HookKindOf(h.Type)
	if !ok {
		return nil
	}
	var blocks map[string]json.RawMessage
	if err := json.Unmarshal(b, &blocks); err != nil {
		return err
	}
	raw := blocks[h.Type]
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	block, err := k.Decode(raw)
	if err != nil {
		return fmt.Errorf("hook %s: %s block: %w", h.Name, h.Type, err)
	}
	h.Block = block
	return nil
}
