package inputs_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/content"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

const repoURL = "https://git.example.com/fleet.git"

// pinnedSpec: three children from the parent's repository at HEAD (an overlay whose base is
// named in manifest-generate-paths, and a $values file), one source from another repository.
const pinnedSpec = `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: shop
spec:
  generators:
  - list:
      elements:
      - {name: dev-1, env: dev}
      - {name: staging-1, env: staging}
      - {name: prod-1, env: prod}
  strategy:
    type: RollingSync
    rollingSync:
      steps:
      - matchExpressions: [{key: env, operator: In, values: [dev]}]
      - matchExpressions: [{key: env, operator: In, values: [staging]}]
      - matchExpressions: [{key: env, operator: In, values: [prod]}]
  template:
    metadata:
      name: 'shop-{{name}}'
      labels: {env: '{{env}}'}
      annotations:
        argocd.argoproj.io/manifest-generate-paths: '.;/base'
    spec:
      project: default
      sources:
      - repoURL: https://git.example.com/Fleet
        targetRevision: HEAD
        path: 'overlays/{{env}}'
      - repoURL: https://git.example.com/fleet.git
        ref: values
      - repoURL: https://charts.example.com
        chart: shop
        targetRevision: 1.2.3
        helm:
          valueFiles: ['$values/values/{{env}}.yaml']
      - repoURL: https://git.example.com/other.git
        targetRevision: main
        path: extras
      destination:
        server: https://kubernetes.default.svc
        namespace: shop
`

type repo struct {
	t    *testing.T
	root string
}

func newRepo(t *testing.T) *repo {
	r := &repo{t: t, root: t.TempDir()}
	r.write(map[string]string{"README.md": "fleet\n", "base/cm.yaml": "base v1\n"})
	for _, env := range []string{"dev", "staging", "prod"} {
		r.write(map[string]string{"overlays/" + env + "/kustomization.yaml": "resources: [../../base]\n", "values/" + env + ".yaml": "replicas: 1\n"})
	}
	return r
}

func (r *repo) write(files map[string]string) {
	for p, body := range files {
		full := filepath.Join(r.root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			r.t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			r.t.Fatal(err)
		}
	}
}

type fixture struct {
	t  *testing.T
	r  *render.Renderer
	d  *content.Digester
	sp *spec.Spec
}

func newFixture(t *testing.T, yaml string) *fixture {
	sp, err := spec.Parse("appset.yaml", []byte(yaml), targets.NewCache(8))
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, r: render.New(8), d: content.NewDigester(8, content.Limits{}), sp: sp}
}

func (f *fixture) input(st *state.State, commit string) render.Input {
	env := render.Env{StateNamespace: contract.DefaultNamespace, AppName: "shop", Source: render.Source{RepoURL: repoURL, TargetRevision: "HEAD", Commit: commit}}
	return render.Input{Spec: f.sp, Inventory: &inventory.Inventory{}, State: st, Env: env}
}

// at renders at commit over the repository at root: the revision (body, id) and the docs.
func (f *fixture) at(root, commit string, st *state.State) ([]byte, string, [][]byte) {
	f.t.Helper()
	in := f.input(st, commit)
	var err error
	if in.Content, in.Unphased, err = inputs.Content(f.r, f.d, in, root); err != nil {
		f.t.Fatal(err)
	}
	if in.Content == nil {
		f.t.Fatal("no content: the children deploy from the parent's repository")
	}
	if !strings.HasSuffix(in.Unphased["shop-prod-1"], "https://git.example.com/other.git@main") {
		f.t.Fatalf("the other repository's branch is not phased: %v", in.Unphased)
	}
	docs, err := f.r.Render(in)
	if err != nil {
		f.t.Fatal(err)
	}
	var plan struct {
		Data map[string]string `json:"data"`
	}
	if err := json.Unmarshal(docs[0], &plan); err != nil {
		f.t.Fatal(err)
	}
	return []byte(plan.Data[contract.PlanSpecKey]), plan.Data[contract.PlanRevisionKey], docs
}

func sha(c byte) string { return strings.Repeat(string(c), 40) }

func deployedAt(id string, body []byte) *state.State {
	return &state.State{Schema: state.Schema, Generation: 1, Deployed: id, Revisions: map[string]json.RawMessage{id: body},
		Children: []string{"shop-dev-1", "shop-prod-1", "shop-staging-1"}}
}

// TestEveryCommitToWhatChildrenDeployIsARevision: the revision covers the files the
// children deploy (source path, manifest-generate-paths, $values files) and nothing else;
// children are pinned to the commit of the revision they run, which a later commit that
// changes nothing they deploy leaves alone.
func TestEveryCommitToWhatChildrenDeployIsARevision(t *testing.T) {
	f := newFixture(t, pinnedSpec)
	r := newRepo(t)
	body1, id1, _ := f.at(r.root, sha('1'), nil)
	st := deployedAt(id1, body1)
	_, _, docs := f.at(r.root, sha('1'), st)
	for _, d := range docs[1:] {
		if !bytes.Contains(d, []byte(`"targetRevision":"`+sha('1')+`"`)) || bytes.Count(d, []byte(sha('1'))) != 2 {
			t.Fatalf("the two sources that follow the parent are pinned, the others are not: %s", d)
		}
		if !bytes.Contains(d, []byte(`"targetRevision":"main"`)) || !bytes.Contains(d, []byte(`"targetRevision":"1.2.3"`)) {
			t.Fatalf("other repositories keep their refs: %s", d)
		}
	}

	r.write(map[string]string{"README.md": "unrelated\n"})
	body2, id2, docs2 := f.at(r.root, sha('2'), st)
	if id2 != id1 || !bytes.Equal(body2, body1) || !bytes.Equal(bytes.Join(docs2, nil), bytes.Join(docs, nil)) {
		t.Fatalf("an unrelated commit is the same revision and moves nobody: %s vs %s", id2, id1)
	}

	for i, change := range []map[string]string{
		{"overlays/prod/kustomization.yaml": "resources: [../../base, extra.yaml]\n"},
		{"base/cm.yaml": "base v2\n"},
		{"values/dev.yaml": "replicas: 2\n"},
		{"overlays/staging/new.yaml": "new\n"},
	} {
		r.write(change)
		_, id, _ := f.at(r.root, sha(byte('3'+i)), st) // a commit is one tree: the digest is cached by it
		if id == id1 {
			t.Fatalf("a change to %v is a new revision", change)
		}
		id1 = id
	}
}

// TestContentFailsClosed: a path the children deploy that does not exist is an error that
// names the child and the path; a render without a commit to pin to is refused.
func TestContentFailsClosed(t *testing.T) {
	f := newFixture(t, pinnedSpec)
	r := newRepo(t)
	if err := os.RemoveAll(filepath.Join(r.root, "overlays", "staging")); err != nil {
		t.Fatal(err)
	}
	in := f.input(nil, sha('1'))
	_, _, err := inputs.Content(f.r, f.d, in, r.root)
	if err == nil || !strings.Contains(err.Error(), "shop-staging-1") || !strings.Contains(err.Error(), "overlays/staging") {
		t.Fatalf("a missing path names the child and the path: %v", err)
	}
	_, _, err = inputs.Content(f.r, f.d, f.input(nil, "main"), newRepo(t).root)
	if err == nil || !strings.Contains(err.Error(), "not a commit SHA") {
		t.Fatalf("no commit, no pin: %v", err)
	}
}

// TestPinCommitsOff: with pinCommits: false the revision is the spec alone and children
// follow HEAD as written.
func TestPinCommitsOff(t *testing.T) {
	yaml := strings.Replace(pinnedSpec, "    type: RollingSync\n", "    type: RollingSync\n    pinCommits: false\n", 1)
	f := newFixture(t, yaml)
	in := f.input(nil, sha('1'))
	c, _, err := inputs.Content(f.r, f.d, in, newRepo(t).root)
	if err != nil || c != nil {
		t.Fatalf("pinning off: no content, got %v %v", c, err)
	}
	_, _, id, _ := f.sp.Revision()
	docs, err := f.r.Render(f.input(deployedAt(id, mustBody(t, f.sp)), sha('1')))
	if err != nil || bytes.Contains(bytes.Join(docs, nil), []byte(sha('1'))) {
		t.Fatalf("nothing pinned: %v", err)
	}
}

func mustBody(t *testing.T, sp *spec.Spec) []byte {
	_, b, _, err := sp.Revision()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPinnedPerChildWhenTemplated: a templated targetRevision is decided per child: the
// child that follows the parent is pinned, the one at a tag is left alone.
func TestPinnedPerChildWhenTemplated(t *testing.T) {
	yaml := strings.NewReplacer("{name: dev-1, env: dev}", "{name: dev-1, env: dev, ref: HEAD}",
		"{name: staging-1, env: staging}", "{name: staging-1, env: staging, ref: HEAD}",
		"{name: prod-1, env: prod}", "{name: prod-1, env: prod, ref: v1.0.0}",
		"        targetRevision: HEAD\n        path: 'overlays/{{env}}'", "        targetRevision: '{{ref}}'\n        path: 'overlays/{{env}}'").Replace(pinnedSpec)
	f := newFixture(t, yaml)
	body, id, _ := f.at(newRepo(t).root, sha('1'), nil)
	_, _, docs := f.at(newRepo(t).root, sha('1'), deployedAt(id, body))
	for _, d := range docs[1:] {
		prod := bytes.Contains(d, []byte(`"name":"shop-prod-1"`))
		if pinned := bytes.Contains(d, []byte(`"path":"overlays/`)) && bytes.Count(d, []byte(sha('1'))) == 2; pinned == prod {
			t.Fatalf("only children following the parent are pinned (prod follows a tag): %s", d)
		}
	}
}

// TestParentOnABranch: under a parent that follows a branch, children at that branch are
// pinned; children at HEAD follow the default branch, which the plugin does not see: they
// are not phased (listed), never pinned to the parent's tree.
func TestParentOnABranch(t *testing.T) {
	f := newFixture(t, pinnedSpec)
	in := f.input(nil, sha('1'))
	in.Env.Source.TargetRevision = "release"
	c, unphased, err := inputs.Content(f.r, f.d, in, newRepo(t).root)
	if err != nil || c != nil || !strings.HasPrefix(unphased["shop-dev-1"], "https://git.example.com/Fleet@HEAD, ") {
		t.Fatalf("children at HEAD under a parent on release are not phased: %v %v %v", c, unphased, err)
	}
	f = newFixture(t, strings.ReplaceAll(pinnedSpec, "targetRevision: HEAD", "targetRevision: release"))
	in = f.input(nil, sha('1'))
	in.Env.Source.TargetRevision = "release"
	if c, _, err = inputs.Content(f.r, f.d, in, newRepo(t).root); err != nil || c == nil || c.Refs[0] != "release" {
		t.Fatalf("children on the parent's branch are phased: %+v %v", c, err)
	}
}

// TestWhatTheFilesPointAtIsReportedNotPhased: the overlay a child deploys names a remote
// base at a branch and an image by tag; another source follows a git tag. The commit's
// digest covers the files, not what they point at, so each child names them as not phased
// (with the file), and nothing else changes.
func TestWhatTheFilesPointAtIsReportedNotPhased(t *testing.T) {
	f := newFixture(t, strings.Replace(pinnedSpec, "targetRevision: main\n        path: extras", "targetRevision: v2.1.0\n        path: extras", 1))
	r := newRepo(t)
	r.write(map[string]string{"overlays/prod/kustomization.yaml": "resources:\n- ../../base\n- github.com/org/base?ref=main\nimages: [{name: shop, newTag: '1.2'}]\n"})
	in := f.input(nil, sha('a'))
	_, unphased, err := inputs.Content(f.r, f.d, in, r.root)
	if err != nil {
		t.Fatal(err)
	}
	prod, dev := unphased["shop-prod-1"], unphased["shop-dev-1"]
	for _, want := range []string{"https://git.example.com/other.git@v2.1.0 (a git tag, which can be moved)",
		"overlays/prod/kustomization.yaml: remote base github.com/org/base?ref=main", "overlays/prod/kustomization.yaml: image shop:1.2"} {
		if !strings.Contains(prod, want) {
			t.Errorf("prod-1 does not name %q: %s", want, prod)
		}
	}
	if strings.Contains(dev, "kustomization.yaml") || !strings.Contains(dev, "@v2.1.0") {
		t.Errorf("dev-1 deploys neither floating reference, only the tag: %s", dev)
	}
}
