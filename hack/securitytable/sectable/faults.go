package sectable

import (
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// faultDir holds the fault suite; proxyFile the framework's fault proxy, whose Fault*
// constants are the kinds of failure it injects into the agent's API calls.
const (
	faultDir  = "test/faults"
	proxyFile = "test/framework/faultproxy.go"
)

// faultCalls are the calls that inject a fault, by the name of the function or method
// called, and the fault. A fault test's faults are the ones it reaches, through the suite's
// own functions.
var faultCalls = map[string]string{
	"StartFaultProxy":      "the agent's API calls failed (%s)",
	"RestartKube":          "the API server and etcd restarted mid-rollout",
	"KillPlugin":           "the sidecar killed (SIGKILL)",
	"RestartRepoServer":    "the repo-server restarted",
	"concurrentRenders":    "renders at once on the plugin socket",
	"CutCluster":           "a managed cluster's API server cut mid-sync",
	"StopClusterAPIServer": "a managed cluster's API server killed mid-phase",
	"RevokeCluster":        "a managed cluster's credentials revoked",
	"SlowCluster":          "a managed cluster's API server slowed (every chunk held)",
}

// faultTests are the fault suite's tests with the outcome each asserts.
var faultTests = []struct{ test, outcome string }{
	{"TestNothingIsLostUnderFaults", "nothing lost: no child ever missing, none on a revision the state did not give it, no hook run again after its recorded success, every rollout finished, every render the same"},
	{"TestASyncCutByAClusterRestartIsRetriedAndTheRolloutGoesOn", "nothing lost: the cut sync retried with backoff, the rollout completes with every cluster on the new revision"},
	{"TestAManagedClusterThatGoesAwayLosesNothing", "nothing lost: never counted Done while away or refused, its child and workload never deleted or pruned; completes when it returns, stops by `onFailure` when refused"},
	{"TestASlowClusterIsWaitedForNotJudged", "nothing lost: the rollout completes, the cluster never counted Done before its API server has the revision"},
}

// notFaults are the suite's other tests, and why they are not in the table.
var notFaults = map[string]string{
	"TestAPermanentApplyErrorStillStopsTheRolloutAtOnce": "a bad manifest, no fault: the rollout must stop at once",
	"TestUninstallLeavesNothing":                         "the uninstall, no fault",
	"TestMain":                                           "the suite's stack",
}

// A Fault is one fault test: the faults it injects and what it asserts.
type Fault struct {
	Test, Outcome string
	Faults        []string
}

// Faults reads the fault suite: every test of it must be in faultTests or notFaults, and
// every one in faultTests must inject a fault.
func Faults(root string) ([]Fault, error) {
	p, err := load(root, faultDir)
	if err != nil {
		return nil, err
	}
	if err := p.listed(); err != nil {
		return nil, err
	}
	kinds, err := proxyKinds(root)
	if err != nil {
		return nil, err
	}
	var out []Fault
	for _, ft := range faultTests {
		fn, ok := p.funcs[ft.test]
		if !ok {
			return nil, fmt.Errorf("%s: no test function %s", faultDir, ft.test)
		}
		f := Fault{Test: ft.test, Outcome: ft.outcome}
		for _, c := range p.reached(fn, map[string]bool{}) {
			f.Faults = append(f.Faults, strings.Replace(faultCalls[c], "%s", kinds, 1))
		}
		if len(f.Faults) == 0 {
			return nil, fmt.Errorf("%s: %s injects no fault faultCalls names", faultDir, ft.test)
		}
		out = append(out, f)
	}
	return out, nil
}

// listed fails on a test of the suite that neither faultTests nor notFaults names.
func (p *pkg) listed() error {
	for name := range p.funcs {
		in := slices.ContainsFunc(faultTests, func(f struct{ test, outcome string }) bool { return f.test == name })
		if _, out := notFaults[name]; strings.HasPrefix(name, "Test") && !in && !out {
			return fmt.Errorf("%s: %s is in neither faultTests nor notFaults (hack/securitytable/sectable/faults.go)", faultDir, name)
		}
	}
	return nil
}

// reached is the faultCalls fn makes, itself or through the package's functions, each
// once, in the order they are first met.
func (p *pkg) reached(fn *ast.FuncDecl, seen map[string]bool) []string {
	var out []string
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		name := called(call)
		if _, fault := faultCalls[name]; fault && !seen["fault "+name] {
			seen["fault "+name] = true
			out = append(out, name)
		}
		if local, ok := p.funcs[name]; ok && !seen[name] {
			seen[name] = true
			out = append(out, p.reached(local, seen)...)
		}
		return true
	})
	return out
}

// called is the name of the function or method call calls, or "".
func called(call *ast.CallExpr) string {
	switch f := call.Fun.(type) {
	case *ast.Ident:
		return f.Name
	case *ast.SelectorExpr:
		return f.Sel.Name
	}
	return ""
}

// proxyKinds lists the values of the framework's Fault* string constants: the kinds of
// failure the fault proxy injects.
func proxyKinds(root string) (string, error) {
	p, err := load(root, proxyFile)
	if err != nil {
		return "", err
	}
	var kinds []string
	for _, c := range p.consts {
		if v, err := strconv.Unquote(c); err == nil {
			kinds = append(kinds, v)
		}
	}
	if len(kinds) == 0 {
		return "", fmt.Errorf("%s: no Fault* constant", proxyFile)
	}
	return fmt.Sprintf("%d kinds: %s", len(kinds), strings.Join(kinds, ", ")), nil
}

// faultConst reports whether spec declares a Fault* string constant, and its literal.
func faultConst(d *ast.GenDecl, i int) (string, bool) {
	vs, ok := d.Specs[i].(*ast.ValueSpec)
	if d.Tok != token.CONST || !ok || len(vs.Names) != 1 || len(vs.Values) != 1 || !strings.HasPrefix(vs.Names[0].Name, "Fault") {
		return "", false
	}
	lit, ok := vs.Values[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	return lit.Value, true
}
