// Package catalog writes cmp-phase's argocd-notifications catalog: one trigger and one
// template per event, the template with a message, an email subject, a JSON body for the
// webhook service cmp-phase, a Slack attachment, and a Teams card (the teams service, Office
// 365 Connectors, and teams-workflows, Power Automate). The catalog's texts repeat the same
// escaping on every value, so they are generated here, never edited by hand:
// manifests/notifications/argocd-notifications-cm.yaml and
// manifests/helm/notifications-values.yaml (go run ./hack/notifications -w).
package catalog

import (
	"fmt"
	"slices"
	"strings"
)

// Paths are the files Generate writes, relative to the repository's root.
const (
	ConfigMapPath  = "manifests/notifications/argocd-notifications-cm.yaml"
	HelmValuesPath = "manifests/helm/notifications-values.yaml"
)

// value is one annotation a template pastes: the variable holding it escaped for a text
// (Slack's &, <, > entities, line breaks as spaces), its key, and its field in the
// webhook body.
type value struct{ v, key, field string }

var values = []value{
	{"$r", "cmp-phase.io/rollout", "rollout"},
	{"$rev", "cmp-phase.io/rollout-revision", "revision"},
	{"$ph", "cmp-phase.io/phase", "phase"},
	{"$ps", "cmp-phase.io/phase-succeeded", "phaseSucceeded"},
	{"$ad", "cmp-phase.io/admitted", "admitted"},
	{"$cf", "cmp-phase.io/check-failed", "checkFailed"},
	{"$pz", "cmp-phase.io/paused", "paused"},
}

// fact is one line of a Slack attachment's fields and a Teams card's facts.
type fact struct{ title, v string }

// event is one trigger and its template.
type event struct {
	name, description string
	when              string // beyond "a parent, not a child"
	oncePer           []string
	subject           string // after "cmp-phase: rollout $r "
	message           string
	color             string
	facts             []fact // after rollout and phase
}

const (
	blue, green, amber, red = "#1f6feb", "#2da44e", "#bf8700", "#cf222e"
)

// namedColors are the Adaptive Card colours of the same severities.
var namedColors = map[string]string{blue: "Accent", green: "Good", amber: "Warning", red: "Attention"}

func ann(key string) string { return "(app.metadata.annotations?.['" + key + "'] ?? '')" }

var (
	notChild    = "(app.metadata.labels?.['cmp-phase.io/cluster'] ?? '') == ''"
	progressing = ann("cmp-phase.io/status") + " == 'Progressing'"
	rolloutID   = ann("cmp-phase.io/rollout-id")
	phase       = ann("cmp-phase.io/phase")
	admitted    = "clusters admitted at this phase: {{$ad}}."
	common      = []fact{{"Revision", "$rev"}, {"Clusters admitted", "$ad"}}
)

var events = []event{
	{name: "rollout-started", description: "A rollout of a new revision started.", when: progressing, oncePer: []string{rolloutID},
		subject: "rollout started", color: blue, facts: common,
		message: "Rollout {{$r}} (parent {{$p}}) started rolling out revision {{$rev}}; " + admitted},
	{name: "phase-succeeded", description: "A phase of the rollout succeeded.", when: ann("cmp-phase.io/phase-succeeded") + " != ''",
		oncePer: []string{rolloutID, ann("cmp-phase.io/phase-succeeded")}, subject: "phase succeeded", color: green,
		facts:   append([]fact{{"Phase succeeded", "$ps"}}, common...),
		message: "Rollout {{$r}} (parent {{$p}}) phase {{$ps}} succeeded (revision {{$rev}}, now at phase {{$ph}}); " + admitted},
	{name: "awaiting-approval", description: "The rollout waits for a person's approval.",
		when: progressing + " and " + ann("cmp-phase.io/waiting-for") + " == 'approval'", oncePer: []string{rolloutID, phase},
		subject: "awaiting approval", color: amber, facts: common,
		message: "Rollout {{$r}} (parent {{$p}}) waits for approval to go on with phase {{$ph}} (revision {{$rev}}); " + admitted +
			` Approve with: cmp-phase approve {{$r}} {{$ph}} --reason "…" (or reject with: cmp-phase reject {{$r}} {{$ph}} --reason "…").`},
	{name: "held-by-window", description: "A change window holds the rollout.",
		when: progressing + " and " + ann("cmp-phase.io/waiting-for") + " == 'window'", oncePer: []string{rolloutID, phase},
		subject: "held by window", color: amber, facts: common,
		message: "Rollout {{$r}} (parent {{$p}}) is held by a change window at phase {{$ph}} (revision {{$rev}}); " + admitted +
			` Let one admission through with: cmp-phase override-window {{$r}} WINDOW --reason "…".`},
	{name: "paused", description: "A pause holds the running rollout: a person's, the fleet-wide stop, or an inconclusive check's.",
		when: progressing + " and " + ann("cmp-phase.io/paused") + " != ''", oncePer: []string{rolloutID, ann("cmp-phase.io/paused")},
		subject: "paused", color: amber, facts: append([]fact{{"Paused since", "$pz"}}, common...),
		message: "Rollout {{$r}} (parent {{$p}}) is PAUSED at phase {{$ph}} (revision {{$rev}}) since {{$pz}}; " + admitted +
			` See who paused it and why with: cmp-phase status {{$r}}; go on with: cmp-phase resume {{$r}} --reason "…".`},
	{name: "check-failed", description: "A check of the current phase failed.",
		when: ann("cmp-phase.io/check-failed") + " != ''", oncePer: []string{rolloutID, phase, ann("cmp-phase.io/check-failed")},
		subject: "check failed", color: red, facts: append([]fact{{"Check failed", "$cf"}}, common...),
		message: "Rollout {{$r}} (parent {{$p}}): check {{$cf}} FAILED at phase {{$ph}} (revision {{$rev}}); " + admitted +
			` See what it said and what the rollout did with: cmp-phase status {{$r}}.`},
	{name: "stopped", description: "The rollout stopped: a person must act.", when: ann("cmp-phase.io/status") + " == 'Stopped'",
		oncePer: []string{rolloutID}, subject: "stopped", color: red, facts: common,
		message: "Rollout {{$r}} (parent {{$p}}) STOPPED at phase {{$ph}} (revision {{$rev}}); " + admitted +
			` See why with: cmp-phase status {{$r}}; then fix and write rollback, resume or abort (cmp-phase rollback|abort {{$r}} --reason "…").`},
	{name: "rolled-back", description: "The rollout rolled back to the previous revision.", when: ann("cmp-phase.io/status") + " == 'RolledBack'",
		oncePer: []string{rolloutID}, subject: "rolled back", color: red, facts: common,
		message: "Rollout {{$r}} (parent {{$p}}) rolled back revision {{$rev}} from phase {{$ph}}; " + admitted},
	{name: "completed", description: "The rollout completed: every phase succeeded.", when: ann("cmp-phase.io/status") + " == 'Completed'",
		oncePer: []string{rolloutID}, subject: "completed", color: green, facts: common,
		message: "Rollout {{$r}} (parent {{$p}}) completed: revision {{$rev}} runs on every cluster; " + admitted},
}

// escape is the text escaping of a pasted value: Slack's entities, no line break.
const escape = ` | default "" | replace "&" "&amp;" | replace "<" "&lt;" | replace ">" "&gt;" | replace "\n" " "`

// prelude binds every value, escaped for a text, and $p, the parent's name.
func prelude() string {
	var b strings.Builder
	b.WriteString(`{{- $a := .app.metadata.annotations -}}`)
	for _, v := range values {
		fmt.Fprintf(&b, `{{- %s := index $a %q%s -}}`, v.v, v.key, escape)
	}
	b.WriteString(`{{- $p := .app.metadata.name` + escape + ` -}}`)
	return b.String()
}

// jsonFacts is a JSON array of e's facts (rollout and phase first), each value escaped for
// a text and then as JSON: keyName and valueName are the object's field names.
func jsonFacts(e event, keyName, valueName, extra string) string {
	var out []string
	for _, f := range append([]fact{{"Rollout", "$r"}, {"Phase", "$ph"}}, e.facts...) {
		out = append(out, fmt.Sprintf(`{"%s": %q, "%s": {{ toJson %s }}%s}`, keyName, f.title, valueName, f.v, extra))
	}
	return "[" + strings.Join(out, ", ") + "]"
}

func body(e event) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{{- $a := .app.metadata.annotations -}}{"event": %q`, e.name)
	fields := map[string]string{"parent": `.app.metadata.name`, "status": `(index $a "cmp-phase.io/status" | default "")`,
		"waitingFor": `(index $a "cmp-phase.io/waiting-for" | default "")`, "rolloutID": `(index $a "cmp-phase.io/rollout-id" | default "")`}
	for _, v := range values {
		if v.field != "revision" {
			fields[v.field] = fmt.Sprintf(`(index $a %q | default "")`, v.key)
		}
	}
	fields["revision"] = `(index $a "cmp-phase.io/rollout-revision" | default "")`
	order := []string{"rollout", "parent", "status", "phase", "phaseSucceeded", "admitted", "waitingFor", "revision", "rolloutID", "checkFailed", "paused"}
	for _, f := range order {
		fmt.Fprintf(&b, `, %q: {{ toJson %s }}`, f, fields[f])
	}
	b.WriteString("}")
	return b.String()
}

// indent indents every line of s by n spaces.
func indent(s string, n int) string {
	pad := strings.Repeat(" ", n)
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

// template is e's template.<name> text.
func template(e event) string {
	pre := prelude()
	subject := pre + "cmp-phase: rollout {{$r}} " + e.subject
	attachment := fmt.Sprintf(`[{"color": %q, "title": {{ toJson (print "cmp-phase: rollout " $r " %s") }}, "fields": %s, "footer": "cmp-phase"}]`,
		e.color, e.subject, jsonFacts(e, "title", "value", `, "short": true`))
	// teams-workflows puts themeColor on an Adaptive Card's title, which takes a named
	// colour (Good, Warning, Attention, Accent), not the hex of a MessageCard
	card := func(color string) string {
		return strings.Join([]string{
			"title: |-\n" + indent(subject, 2),
			"summary: |-\n" + indent(subject, 2),
			fmt.Sprintf("themeColor: %q", color),
			"facts: |-\n" + indent(pre+jsonFacts(e, "name", "value", ""), 2),
		}, "\n")
	}
	return strings.Join([]string{
		"message: |\n" + indent(pre+e.message, 2),
		"email:\n  subject: |\n" + indent(subject, 4),
		"webhook:\n  cmp-phase:\n    method: POST\n    body: |\n" + indent(body(e), 6),
		"slack:\n  attachments: |-\n" + indent(pre+attachment, 4),
		"teams:\n" + indent(card(e.color), 2),
		"teams-workflows:\n" + indent(card(namedColors[e.color]), 2),
	}, "\n") + "\n"
}

// trigger is e's trigger.on-cmp-phase-<name> text.
func trigger(e event) string {
	return fmt.Sprintf("- description: %q\n  when: %s and %s\n  oncePer: %s\n  send: [cmp-phase-%s]\n",
		e.description, notChild, e.when, strings.Join(e.oncePer, " + '/' + "), e.name)
}

// Entries are the catalog's data: trigger.on-cmp-phase-<event> and template.cmp-phase-<event>.
func Entries() map[string]string {
	out := map[string]string{}
	for _, e := range events {
		out["trigger.on-cmp-phase-"+e.name] = trigger(e)
		out["template.cmp-phase-"+e.name] = template(e)
	}
	return out
}

const cmHeader = `# argocd-notifications-cm entries of cmp-phase's catalog (a strategic merge into Argo CD's own).
# Generated by go run ./hack/notifications -w (hack/notifications/catalog): do not edit.
# One trigger and one template per event; each trigger fires once per rollout (oncePer: its
# cmp-phase.io/rollout-id, and the phase, the pause or the check for per-phase events), and
# never on a child (one labelled cmp-phase.io/cluster). Every value a template pastes is
# escaped for where it lands: toJson in the webhook's JSON body, the Slack attachment and
# the Teams facts; &, <, > as Slack's entities and line breaks as spaces in every text, so
# no value can add a field, a line or a link.
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-notifications-cm
data:
`

const valuesHeader = `# The argo-cd Helm chart's values that add cmp-phase's notifications catalog: the same
# triggers and templates as manifests/notifications/argocd-notifications-cm.yaml (both
# generated by go run ./hack/notifications -w; a unit test keeps the two equal). Use with
# values.yaml, in any order with the other option files (only map keys: they add to yours):
# helm upgrade ... -f values.yaml -f notifications-values.yaml, and add a service
# (notifications.notifiers: service.slack / service.teams / service.webhook.cmp-phase) and
# subscriptions on the parents (see docs).
notifications:
`

// block is key: |\n followed by text indented by n+2.
func block(key, text string, n int) string {
	return strings.Repeat(" ", n) + key + ": |\n" + indent(strings.TrimSuffix(text, "\n"), n+2) + "\n"
}

// Generate is the two files' content: the ConfigMap, then the Helm values.
func Generate() (cm, helm string) {
	entries := Entries()
	var c, h strings.Builder
	c.WriteString(cmHeader)
	// triggers first, then templates, each in the order of events
	for _, prefix := range []string{"trigger.on-cmp-phase-", "template.cmp-phase-"} {
		for _, e := range events {
			c.WriteString(block(prefix+e.name, entries[prefix+e.name], 2))
		}
	}
	h.WriteString(valuesHeader)
	for _, part := range []struct{ key, prefix string }{{"templates", "template."}, {"triggers", "trigger."}} {
		h.WriteString("  " + part.key + ":\n")
		var keys []string
		for k := range entries {
			if strings.HasPrefix(k, part.prefix) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			h.WriteString(block(k, entries[k], 4))
		}
	}
	return c.String(), h.String()
}
