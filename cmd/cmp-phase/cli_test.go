package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
)

// cobraComplete is cobra's hidden command the completion scripts call.
const cobraComplete = "__complete"

// stateCM is a rollout's state ConfigMap: a rollout of rev at phase (of phases, each with
// its members, the first admitted) with status.
func stateCM(t *testing.T, ns, rollout string, status state.RolloutStatus, phase int, members ...[]string) *corev1.ConfigMap {
	t.Helper()
	st := &state.State{Schema: state.Schema, Generation: 7, Deployed: "0123456789abcdef0123",
		Revisions: map[string]json.RawMessage{"0123456789abcdef0123": json.RawMessage(`{}`), "fedcba9876543210fedc": json.RawMessage(`{}`)}}
	r := &state.Rollout{Revision: "fedcba9876543210fedc", Status: status, Phase: phase, StartedAt: time.Now().Add(-90 * time.Minute)}
	for i, m := range members {
		ph := state.PhaseState{Name: []string{"dev", "staging", "prod"}[i], Status: state.PhasePending, Members: m}
		if i <= phase {
			ph.Admitted, ph.Status = m, state.PhaseSucceeded
		}
		r.Phases = append(r.Phases, ph)
	}
	st.Rollout = r
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: contract.StateConfigMap(rollout), Namespace: ns,
		Labels: map[string]string{contract.LabelState: contract.MarkerValue}, CreationTimestamp: metav1.Now()}}
	if err := state.ToConfigMap(st, cm); err != nil {
		t.Fatal(err)
	}
	return cm
}

// runFake runs the command line against a fake API server holding objs, in namespace ns.
func runFake(t *testing.T, kc *fake.Clientset, ns string, args ...string) (string, string, int) {
	t.Helper()
	return runFakeCtx(context.Background(), t, kc, ns, args...)
}

func runFakeCtx(ctx context.Context, t *testing.T, kc *fake.Clientset, ns string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{ctx: ctx, args: args, out: &out, errOut: &errb}
	a.connect = func() (*conn, error) { return &conn{kc: kc, namespace: ns, user: "tester"}, nil }
	root := newRoot(a)
	root.SetArgs(args)
	code := exitOK
	if err := root.Execute(); err != nil {
		code = exitUsage
		if ee, ok := err.(*exitError); ok {
			code = ee.code
		}
		errb.WriteString(err.Error())
	}
	return out.String(), errb.String(), code
}

func TestListOneNamespaceAndAll(t *testing.T) {
	long := strings.Repeat("x", 51) // a long name widens its column, the others stay in line
	kc := fake.NewClientset(
		stateCM(t, "argocd", "guestbook", state.RolloutProgressing, 0, []string{"a", "b"}, []string{"c"}),
		stateCM(t, "argocd", long, state.RolloutCompleted, 1, []string{"a"}, []string{"a", "b"}),
		stateCM(t, "team-b", "ledger", state.RolloutStopped, 1, []string{"eu"}, []string{"us"}),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "other", Namespace: "argocd"}},
	)
	out, errOut, code := runFake(t, kc, "argocd", "list")
	if code != 0 || errOut != "" {
		t.Fatalf("list: %d %q", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ROLLOUT") || !strings.Contains(lines[1], "guestbook") || !strings.Contains(lines[1], "Progressing") || !strings.Contains(lines[1], "2/3") {
		t.Fatalf("list:\n%s", out)
	}
	col := strings.Index(lines[0], "STATUS")
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l[col:], "Progressing") && !strings.HasPrefix(l[col:], "Completed") {
			t.Fatalf("the STATUS column is out of line:\n%s", out)
		}
	}
	if !strings.Contains(lines[2], "2/2") || !strings.Contains(lines[1], "90m") {
		t.Fatalf("admitted and age:\n%s", out)
	}
	out, _, code = runFake(t, kc, "argocd", "list", "-A")
	if code != 0 || !strings.HasPrefix(out, "NAMESPACE") || !strings.Contains(out, "team-b") || strings.Count(out, "\n") != 4 {
		t.Fatalf("list -A:\n%s", out)
	}
	out, _, _ = runFake(t, kc, "argocd", "list", "-A", "-o", "jsonpath={range .items[*]}{.namespace}/{.rollout}={.status} {end}")
	if out != "argocd/guestbook=Progressing argocd/"+long+"=Completed team-b/ledger=Stopped " {
		t.Fatalf("jsonpath: %q", out)
	}
	out, _, _ = runFake(t, kc, "team-b", "list", "-o", "name")
	if out != "rollout/ledger\n" {
		t.Fatalf("-o name: %q", out)
	}
	out, _, _ = runFake(t, kc, "team-b", "list", "-o", "wide")
	if !strings.Contains(out, "REVISION") || !strings.Contains(out, "fedcba987654") {
		t.Fatalf("-o wide: %q", out)
	}
	var doc rolloutList
	out, _, _ = runFake(t, kc, "team-b", "list", "--output", "json")
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Items) != 1 || doc.Items[0].Phase != "staging" || doc.Items[0].Admitted != 2 {
		t.Fatalf("--output json: %v %s", err, out)
	}
	_, errOut, code = runFake(t, kc, "empty", "list")
	if code != 0 || !strings.Contains(errOut, "No rollouts found in namespace empty") {
		t.Fatalf("no rollouts: %d %q", code, errOut)
	}
}

func TestStatusJSONPathMatchesTheTableAndNotFoundSaysHowToList(t *testing.T) {
	kc := fake.NewClientset(stateCM(t, "argocd", "web", state.RolloutProgressing, 1, []string{"a"}, []string{"b"}, []string{"c"}))
	out, _, code := runFake(t, kc, "argocd", "status", "web", "-o", "jsonpath={.phase}")
	if code != 0 || out != "staging" {
		t.Fatalf("jsonpath: %d %q", code, out)
	}
	table, _, _ := runFake(t, kc, "argocd", "status", "web")
	if !strings.Contains(table, "STATUS  Progressing of fedcba987654 at staging") {
		t.Fatalf("table:\n%s", table)
	}
	out, _, _ = runFake(t, kc, "argocd", "status", "web", "-o", "go-template={{.status}}/{{len .phases}}")
	if out != "Progressing/3" {
		t.Fatalf("go-template: %q", out)
	}
	_, errOut, code := runFake(t, kc, "argocd", "status", "nosuch")
	if code != 1 || !strings.Contains(errOut, `rollout "nosuch" not found in namespace argocd (fix: list the rollouts with `+"`cmp-phase list -n argocd`") || strings.Contains(errOut, "configmaps") {
		t.Fatalf("not found: %d %q", code, errOut)
	}
	_, errOut, code = runFake(t, kc, "argocd", "pause", "nosuch", "--reason", "x")
	if code != 1 || !strings.Contains(errOut, `rollout "nosuch" not found`) {
		t.Fatalf("pause of no rollout: %d %q", code, errOut)
	}
}

func TestStatusWaitExitCodes(t *testing.T) {
	for status, want := range map[state.RolloutStatus]int{state.RolloutCompleted: 0, state.RolloutStopped: 1, state.RolloutRolledBack: 1, state.RolloutProgressing: 3} {
		kc := fake.NewClientset(stateCM(t, "argocd", "web", status, 0, []string{"a"}))
		if _, errOut, code := runFake(t, kc, "argocd", "status", "web", "--wait", "--timeout", "1500ms"); code != want {
			t.Errorf("%s: exit %d (%s), want %d", status, code, errOut, want)
		}
	}
}

// syncBuffer is a bytes.Buffer safe to read while the command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestStatusWatchAppendsEachChange: -w follows the ConfigMap with a watch; not on a
// terminal, each version is appended once (no screen-clearing codes), until Ctrl-C.
func TestStatusWatchAppendsEachChange(t *testing.T) {
	cm := stateCM(t, "argocd", "web", state.RolloutProgressing, 0, []string{"a"}, []string{"b"})
	kc := fake.NewClientset(cm)
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	a := &app{ctx: ctx, args: []string{"status", "web", "-w"}, out: &out, errOut: &out}
	a.connect = func() (*conn, error) { return &conn{kc: kc, namespace: "argocd"}, nil }
	root := newRoot(a)
	root.SetArgs(a.args)
	done := make(chan error)
	go func() { done <- root.Execute() }()
	waitFor := func(what string, cond func(string) bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !cond(out.String()); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s:\n%s", what, out.String())
			}
		}
	}
	waitFor("the first version", func(s string) bool { return strings.Contains(s, "at dev") })
	next := stateCM(t, "argocd", "web", state.RolloutStopped, 1, []string{"a"}, []string{"b"})
	next.ResourceVersion = "2"
	if _, err := kc.CoreV1().ConfigMaps("argocd").Update(ctx, next, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor("the change", func(s string) bool { return strings.Contains(s, "Stopped of") })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Ctrl-C ends the watch: %v", err)
	}
	if s := out.String(); strings.Count(s, "ROLLOUT web") != 2 || strings.Contains(s, "\x1b[") {
		t.Fatalf("want two versions appended:\n%q", s)
	}
}

func TestPlanJSONAndReasons(t *testing.T) {
	const spec = "../../internal/render/testdata/spec-v2.yaml"
	out, errOut, code := runCmd(t, "plan", spec, "--inventory-file", "../../internal/render/testdata/inventory.json", "-o", "json")
	var doc lineupDoc
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
	if doc.Rollout != "guestbook" || len(doc.Phases) != 3 || doc.Phases[2].Name != "prod" || doc.Phases[2].Size != "50%" ||
		doc.Phases[0].Members[1].Child != "guestbook-dev-2" || doc.Phases[0].Members[1].Order != 2 || doc.Phases[2].Step != 3 {
		t.Fatalf("%+v", doc)
	}
	out, _, code = runCmd(t, "plan", "../../examples/canary", "--inventory-file", "../../internal/render/testdata/inventory.json")
	if code != 0 || !strings.Contains(out, "LEFT OUT cluster dev-1: the spec's clusters generator does not select it") {
		t.Fatalf("left out:\n%s", out)
	}
	_, errOut, code = runCmd(t, "plan", "../../internal/render/testdata/err-hook-limits/spec.yaml", "--inventory-file", "../../internal/render/testdata/inventory.json")
	if code != 1 || !strings.Contains(errOut, "(fix: `cmp-phase validate") {
		t.Fatalf("an invalid spec: %d %q", code, errOut)
	}
}

// TestPlanReadsTheClusterSecrets: without --inventory-file, the cluster Secrets of -n are
// the inventory, read as the agent reads them.
func TestPlanReadsTheClusterSecrets(t *testing.T) {
	secret := func(name, env string) runtime.Object {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "cluster-" + name, Namespace: "argocd",
			Labels: map[string]string{contract.LabelSecretType: contract.SecretTypeCluster, "env": env}},
			Data: map[string][]byte{"name": []byte(name), "server": []byte("https://" + name)}}
	}
	kc := fake.NewClientset(secret("prod-1", "prod"), secret("prod-2", "prod"), secret("dev-1", "dev"))
	out, errOut, code := runFake(t, kc, "argocd", "plan", "../../examples/canary", "-o", "jsonpath={.phases[0].members[*].cluster} {.leftOut[*].cluster}")
	if code != 0 || out != "prod-1 prod-2 dev-1" {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
}

// TestPlanSplitsTracks: from the phase with tracks on, each track has its own copy of the
// later phases, at the step of the phase it copies, with its members only.
func TestPlanSplitsTracks(t *testing.T) {
	b, err := os.ReadFile("../../internal/render/testdata/spec-v2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b), "      - name: staging\n", "      - name: staging\n        tracks: labels.region\n", 1)
	file := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd(t, "plan", file, "--inventory-file", "../../internal/render/testdata/inventory.json", "-o", "json")
	var doc lineupDoc
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
	var got []string
	for _, p := range doc.Phases {
		var ms []string
		for _, m := range p.Members {
			ms = append(ms, m.Cluster)
		}
		got = append(got, fmt.Sprintf("%d %s@%s %s", p.Step, p.Name, p.Track, strings.Join(ms, ",")))
	}
	want := []string{"1 dev@ dev-1,dev-2", "2 staging@eu staging-1", "3 prod@eu prod-1", "2 staging@us staging-2", "3 prod@us prod-2"}
	if !slices.Equal(got, want) || !slices.Equal(doc.Tracks, []string{"eu", "us"}) {
		t.Fatalf("got %q, want %q; tracks %v", got, want, doc.Tracks)
	}
}

// TestPlanEveryExample: plan lines up every example over the test inventory, and every
// child it generates is placed in a phase or left out with a reason.
func TestPlanEveryExample(t *testing.T) {
	specs, _ := filepath.Glob("../../examples/*/appset.yaml")
	seeds, _ := filepath.Glob("../../internal/spec/testdata/seeds/003-*.yaml")
	if specs = append(specs, seeds...); len(specs) < 5 {
		t.Fatalf("examples and seeds: %v", specs)
	}
	for _, p := range specs {
		out, errOut, code := runCmd(t, "plan", p, "--inventory-file", "../../internal/render/testdata/inventory.json", "-o", "json")
		var doc lineupDoc
		if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Phases) == 0 {
			t.Errorf("plan %s: %d %s", p, code, errOut)
			continue
		}
		for _, l := range doc.LeftOut {
			if l.Reason == "" {
				t.Errorf("plan %s: %+v left out without a reason", p, l)
			}
		}
	}
}

// TestRolloutNamesComplete: the shells complete a rollout argument with the rollouts of -n.
func TestRolloutNamesComplete(t *testing.T) {
	kc := fake.NewClientset(stateCM(t, "argocd", "web", state.RolloutCompleted, 0, []string{"a"}), stateCM(t, "argocd", "api", state.RolloutCompleted, 0, []string{"a"}))
	out, _, code := runFake(t, kc, "argocd", cobraComplete, "pause", "")
	if code != 0 || !strings.HasPrefix(out, "api\nweb\n:4\n") {
		t.Fatalf("%d %q", code, out)
	}
}

// TestPlanRefusesTheClusterNamesARenderRefuses: plan --inventory-file listed children for
// cluster names generate refuses to render (issue 47): a name that is no label value, two
// clusters rendering one child name. plan now refuses each as validate's dry render (the
// render generate and the sidecar run) does, with the same message; a good name passes.
func TestPlanRefusesTheClusterNamesARenderRefuses(t *testing.T) {
	cluster := func(name string) string {
		return fmt.Sprintf(`{"name":%q,"server":"https://10.0.0.%d:6443","labels":{"env":"prod","argocd.argoproj.io/secret-type":"cluster"}}`, name, len(name)%250+1)
	}
	for _, tc := range []struct{ name, clusters, want string }{
		{"a space", cluster("x y"), `cluster "x y": its name is not a Kubernetes label value`},
		{"an EKS ARN", cluster("arn:aws:eks:eu-west-1:123456789012:cluster/prod"), `its name is not a Kubernetes label value`},
		{"64 characters", cluster(strings.Repeat("a", 64)), `its name is not a Kubernetes label value`},
		{"a leading dash", cluster("-prod"), `cluster "-prod": its name is not a Kubernetes label value`},
		{"a slash", cluster("eu/prod"), `cluster "eu/prod": its name is not a Kubernetes label value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inv := filepath.Join(t.TempDir(), "inventory.json")
			if err := os.WriteFile(inv, []byte(`{"clusters":[`+tc.clusters+`]}`), 0o600); err != nil {
				t.Fatal(err)
			}
			_, vErr, vCode := runCmd(t, "validate", "../../examples/progressive", "--inventory-file", inv)
			out, pErr, pCode := runCmd(t, "plan", "../../examples/progressive", "--inventory-file", inv)
			if vCode != 1 || !strings.Contains(vErr, tc.want) {
				t.Fatalf("validate: %d %q, want it refused with %q", vCode, vErr, tc.want)
			}
			if pCode != 1 || !strings.Contains(pErr, tc.want) || !strings.Contains(pErr, "(fix: ") || out != "" {
				t.Fatalf("plan: %d %q %q, want it refused as validate is", pCode, out, pErr)
			}
		})
	}
	inv := filepath.Join(t.TempDir(), "inventory.json")
	if err := os.WriteFile(inv, []byte(`{"clusters":[`+cluster("prod-1")+`]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runCmd(t, "plan", "../../examples/progressive", "--inventory-file", inv); code != 0 || !strings.Contains(out, "guestbook-prod-1") {
		t.Fatalf("a good name: %d %q %q", code, out, errOut)
	}
}

// TestAnUnselectedChildThatCannotRenderIsReportedNotRefused: seed 000's coexistence steps
// over a fleet with the unlabelled in-cluster: validate and plan accept the spec, and both
// name the in-cluster child as left out, with the reason.
func TestAnUnselectedChildThatCannotRenderIsReportedNotRefused(t *testing.T) {
	b, err := os.ReadFile("../../internal/spec/testdata/compose/000-coexist.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	text = text[:strings.Index(text, "    deploymentStrategy:")] + text[strings.Index(text, "  template:"):]
	dir := t.TempDir()
	file, inv := filepath.Join(dir, "coexist.yaml"), filepath.Join(dir, "inventory.json")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(inv, []byte(`{"clusters":[{"name":"dev-1","server":"https://dev-1","labels":{"env":"dev"}},{"name":"in-cluster","server":"https://kubernetes.default.svc"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCmd(t, "validate", file, "--inventory-file", inv)
	if code != 0 || !strings.Contains(out, "warning: child in-cluster-app, which no step selects, is left out: its template cannot render") {
		t.Fatalf("validate: %d %q %q", code, out, errOut)
	}
	out, errOut, code = runCmd(t, "plan", file, "--inventory-file", inv)
	if code != 0 || !strings.Contains(out, "LEFT OUT child in-cluster-app: no step selects it and its template cannot render") {
		t.Fatalf("plan: %d %q %q", code, out, errOut)
	}
}

// TestPlanSaysWhoEachPhaseAdmitsUnderTheAgentsLimits: plan names per phase only the
// children it admits (a 10% canary one, the next phase the rest, not all again) with the
// count so far; it takes validate's limit flags (a hook timeout over --max-command-timeout
// refused as validate refuses it, accepted once raised) and --max-apps-per-phase, whose
// excess it shows as a rollout that would not start.
func TestPlanSaysWhoEachPhaseAdmitsUnderTheAgentsLimits(t *testing.T) {
	const inv = "../../internal/render/testdata/inventory.json"
	out, errOut, code := runCmd(t, "plan", "../../examples/canary", "--inventory-file", inv, "-o", "json")
	var doc lineupDoc
	if code != 0 || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
	if len(doc.Phases) != 2 || len(doc.Phases[0].Admits) != 1 || doc.Phases[0].Admitted != 1 ||
		len(doc.Phases[1].Admits) != 1 || doc.Phases[1].Admits[0].Child == doc.Phases[0].Admits[0].Child || doc.Phases[1].Admitted != 2 || doc.Children != 2 {
		t.Fatalf("each phase admits its new members only: %+v", doc.Phases)
	}
	b, err := os.ReadFile("../../examples/canary/appset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "appset.yaml")
	if err := os.WriteFile(file, []byte(strings.Replace(string(b), "          timeout: 10m\n", "          timeout: 2h\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, vErr, _ := runCmd(t, "validate", file)
	_, pErr, code := runCmd(t, "plan", file, "--inventory-file", inv)
	if code != 1 || !strings.Contains(vErr, "is over --max-command-timeout") || !strings.Contains(pErr, "is over --max-command-timeout") {
		t.Fatalf("plan refuses what validate refuses: %d %q, validate %q", code, pErr, vErr)
	}
	out, pErr, code = runCmd(t, "plan", file, "--inventory-file", inv, "--max-command-timeout", "3h", "--max-apps-per-phase", "1")
	if code != 0 || !strings.Contains(out, "WARNING the rollout would not start: phase canary has 2 members, over the limit of 1") {
		t.Fatalf("plan under the agent's limits: %d %q %q", code, out, pErr)
	}
	out, _, _ = runCmd(t, "plan", "../../internal/render/testdata/spec-v2.yaml", "--inventory-file", inv)
	if !strings.Contains(out, "LEFT OUT child guestbook-prod-2: phase prod selects it, but no phase admits it") || !strings.Contains(out, "5/6") {
		t.Fatalf("a member no phase admits is left out, saying why:\n%s", out)
	}
}

// TestValidateAndPlanWarnOfManyHooks: a phase of more than ten hooks and checks is warned
// about by validate and plan, as the agent warns when the rollout starts.
func TestValidateAndPlanWarnOfManyHooks(t *testing.T) {
	b, err := os.ReadFile("../../examples/canary/appset.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks strings.Builder
	for i := range 11 {
		fmt.Fprintf(&hooks, "        - name: h%d\n          type: http\n          http: {url: \"https://hooks.example.com/h%d\"}\n", i, i)
	}
	text := strings.Replace(string(b), "        postHooks:\n", "        postHooks:\n"+hooks.String(), 1)
	file := filepath.Join(t.TempDir(), "appset.yaml")
	if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	const want = "phase prod declares 12 hooks and checks, more than 10"
	out, errOut, code := runCmd(t, "validate", file)
	if code != 0 || !strings.Contains(out, "warning: "+want) {
		t.Fatalf("validate: %d %q %q", code, out, errOut)
	}
	out, errOut, code = runCmd(t, "plan", file, "--inventory-file", "../../internal/render/testdata/inventory.json")
	if code != 0 || !strings.Contains(out, "WARNING "+want) {
		t.Fatalf("plan: %d %q %q", code, out, errOut)
	}
}
