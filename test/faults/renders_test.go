//go:build e2e

package faults

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/test/framework"
)

// concurrentRenders sends n renders of the parent at the repository's head to the real
// plugin socket at once; they must all succeed with the same manifests.
func concurrentRenders(ctx context.Context, t *testing.T, n int) (ok, failed int) {
	t.Helper()
	parent, err := env.App(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	head, err := env.Git.Head()
	if err != nil {
		t.Fatal(err)
	}
	gen := ""
	for _, e := range parent.Spec.Source.Plugin.Env {
		if e.Name == contract.EnvPhaseGen {
			gen = e.Value
		}
	}
	c, err := env.DialPlugin()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	envs := []string{contract.EnvAppName + "=" + name, contract.EnvAppNamespace + "=" + framework.ArgoNamespace,
		contract.EnvAppRevision + "=" + head, contract.EnvAppSourceRepoURL + "=" + env.Git.URL,
		contract.EnvAppSourcePath + "=" + name + "/app", contract.EnvAppSourceTargetRevision + "=HEAD",
		contract.PluginEnvPhaseGen + "=" + gen}
	var mu sync.Mutex
	var first []byte
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			out, err := renderOnce(ctx, c, envs)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				failed++
				t.Logf("render %d: %v", i, err)
			case first == nil:
				first, ok = out, ok+1
			case !bytes.Equal(first, out):
				failed++
				t.Logf("render %d differs", i)
			default:
				ok++
			}
		})
	}
	wg.Wait()
	return ok, failed
}

func renderOnce(ctx context.Context, c *framework.PluginClient, envs []string) ([]byte, error) {
	root := env.Git.WorkDir
	manifests, err := c.Render(ctx, root, filepath.Join(root, name, "app"), envs)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for i, m := range manifests {
		fmt.Fprintf(&b, "%s:%s\n", strconv.Itoa(i), m)
	}
	return b.Bytes(), nil
}
