package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/inventory"
	"github.com/cmp-phase/cmp-phase/internal/render"
	"github.com/cmp-phase/cmp-phase/internal/render/content"
	"github.com/cmp-phase/cmp-phase/internal/render/inputs"
	"github.com/cmp-phase/cmp-phase/internal/render/pipeline"
	"github.com/cmp-phase/cmp-phase/internal/spec"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/targets"
)

type generateOptions struct {
	dir            string
	stateFile      string
	inventoryFile  string
	fromCluster    bool
	stateNamespace string
	kubeconfig     string
	repoRoot       string
}

// newGenerate renders once. stdout gets manifests only, and only on success.
func newGenerate(a *app) *cobra.Command {
	var o generateOptions
	c := &cobra.Command{
		Use:     "generate",
		GroupID: "plugin",
		Short:   "Render the children of the spec in --dir to stdout (stock argocd-cmp-server, local use)",
		Long: `Render the children of the spec in --dir once, to stdout (manifests only, and only on
success): the command of plugin.yaml under Argo CD's stock argocd-cmp-server
(--from-cluster), or a local render from an inventory and a state file.

Exit codes: 0 rendered; 1 the spec, inventory or state is refused (one line on stderr);
2 bad usage.`,
		Example: `  # locally: the first deployment of a spec over an inventory
  cmp-phase generate --dir apps/guestbook --inventory-file clusters.json

  # as plugin.yaml runs it in the stock CMP sidecar
  cmp-phase generate --from-cluster`,
		Args: exactArgs(0, "no arguments (the spec is in --dir)"),
		RunE: func(c *cobra.Command, args []string) error {
			docs, err := generate(a.ctx, o)
			if err != nil {
				return failed(fmt.Errorf("generate: %s", oneLine(err)))
			}
			if err := render.WriteStream(a.out, docs); err != nil {
				return failed(fmt.Errorf("generate: %w", err))
			}
			return nil
		},
	}
	fs := c.Flags()
	fs.StringVar(&o.dir, "dir", ".", "directory holding the spec (the CMP runs in the app directory)")
	fs.StringVar(&o.stateFile, "state-file", "", "state: a ConfigMap manifest or a state JSON document")
	fs.StringVar(&o.inventoryFile, "inventory-file", "", "inventory: a ConfigMap manifest or {\"clusters\":[...]}")
	fs.BoolVar(&o.fromCluster, "from-cluster", false, "read state and inventory ConfigMaps from the API server (in-cluster or --kubeconfig)")
	fs.StringVar(&o.stateNamespace, "state-namespace", envOr(contract.EnvStateNamespace, contract.DefaultNamespace), "namespace of the state, inventory and plan ConfigMaps")
	fs.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig for --from-cluster (default: in-cluster)")
	fs.StringVar(&o.repoRoot, "repo-root", "", "root of the parent's repository checkout (default: --dir less "+contract.EnvAppSourcePath+")")
	stableDefaults(c)
	return c
}

// generate runs the render pipeline once, on the app directory --dir with the process's
// env: state and inventory from files or, with --from-cluster, from the API server.
func generate(ctx context.Context, o generateOptions) ([][]byte, error) {
	p := pipeline.Pipeline{Renderer: render.New(4), Digests: content.NewDigester(1, content.Limits{}), StateNamespace: o.stateNamespace}
	return p.Run(ctx, generateSource{o}, o.dir, os.LookupEnv)
}

// generateSource is the pipeline's inputs of generate.
type generateSource struct{ o generateOptions }

func (g generateSource) Spec(dir string) (*spec.Spec, error) {
	return spec.Load(dir, targets.NewCache(64))
}

// SpecGone finds the parent's rollout on the cluster (--from-cluster); a local render has
// none, so a missing spec is the load error.
func (g generateSource) SpecGone(ctx context.Context, parent string, loadErr error) ([][]byte, error) {
	if !g.o.fromCluster {
		return nil, loadErr
	}
	return specGoneFromCluster(ctx, g.o, parent, loadErr)
}

func (g generateSource) Inputs(ctx context.Context, rollout string) (*state.State, *inventory.Inventory, error) {
	return loadStateAndInventory(ctx, g.o, rollout)
}

func (g generateSource) Root() (string, error) { return repoRoot(g.o) }

// repoRoot is the root of the repository checkout: --repo-root, or the app directory less
// the app's path in the repository (the stock CMP server runs the command in the app dir).
func repoRoot(o generateOptions) (string, error) {
	if o.repoRoot != "" {
		return filepath.Abs(o.repoRoot)
	}
	dir, err := filepath.Abs(o.dir)
	if err != nil {
		return "", fmt.Errorf("repository root: %w", err)
	}
	rel := filepath.Clean(os.Getenv(contract.EnvAppSourcePath))
	if rel == "." {
		return dir, nil
	}
	root, ok := strings.CutSuffix(dir, string(filepath.Separator)+rel)
	if !ok {
		return "", fmt.Errorf("repository root: --dir %s does not end with %s %s (fix: pass --repo-root)", dir, contract.EnvAppSourcePath, rel)
	}
	return root, nil
}

func loadStateAndInventory(ctx context.Context, o generateOptions, rollout string) (*state.State, *inventory.Inventory, error) {
	if o.fromCluster {
		return readFromCluster(ctx, o, rollout, nil)
	}
	if o.inventoryFile == "" {
		return nil, nil, fmt.Errorf("no inventory (fix: pass --inventory-file, or --from-cluster to read the agent's)")
	}
	inv, err := inputs.InventoryFromFile(o.inventoryFile)
	if err != nil {
		return nil, nil, err
	}
	if o.stateFile == "" {
		return nil, inv, nil
	}
	st, err := inputs.StateFromFile(o.stateFile)
	if err != nil {
		return nil, nil, err
	}
	return st, inv, nil
}

// stableDefaults shows the defaults that come from the environment as where they come
// from, so help and the generated reference are the same on every machine.
func stableDefaults(c *cobra.Command) {
	show := map[string]string{
		"socket-dir":      "$" + contract.EnvPluginSocketDir + ", else " + contract.DefaultPluginSocketDir,
		"state-namespace": "$" + contract.EnvStateNamespace + ", else " + contract.DefaultNamespace,
		"work-dir":        "$TMPDIR, else /tmp",
	}
	for name, def := range show {
		if f := c.Flags().Lookup(name); f != nil {
			f.DefValue = def
		}
	}
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
