package framework

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"
)

// latest is the last started program with that name.
func (e *Env) latest(name string) *Proc {
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := len(e.procs) - 1; i >= 0; i-- {
		if e.procs[i].Name == name {
			return e.procs[i]
		}
	}
	return nil
}

// Restart stops the named program (SIGTERM, then SIGKILL after grace; grace 0 kills at
// once) and starts it again as it was started, then waits for addr to accept connections.
func (e *Env) Restart(ctx context.Context, name string, grace time.Duration, addr string) error {
	p := e.latest(name)
	if p == nil {
		return fmt.Errorf("restart %s: no such program", name)
	}
	if grace == 0 {
		p.Kill()
	} else {
		p.Stop(grace)
	}
	<-p.Wait()
	np, err := e.Start(p.spec)
	if err != nil {
		return fmt.Errorf("restart %s: %w", name, err)
	}
	return WaitTCP(ctx, np, addr)
}

// RestartKube restarts etcd and then kube-apiserver, on the same ports and data.
func (e *Env) RestartKube(ctx context.Context) error {
	api := e.latest("kube-apiserver")
	if api == nil {
		return fmt.Errorf("restart kube: no kube-apiserver")
	}
	api.Stop(5 * time.Second)
	<-api.Wait()
	u, err := url.Parse(e.etcdURL)
	if err != nil {
		return err
	}
	if err := e.Restart(ctx, "etcd", 5*time.Second, u.Host); err != nil {
		return err
	}
	np, err := e.Start(api.spec)
	if err != nil {
		return fmt.Errorf("restart kube-apiserver: %w", err)
	}
	return e.waitReady(ctx, np)
}

// RestartRepoServer restarts argocd-repo-server.
func (e *Env) RestartRepoServer(ctx context.Context) error {
	return e.Restart(ctx, "argocd-repo-server", 5*time.Second, e.repoAddr)
}

// KillPlugin kills a CMP sidecar at once (SIGKILL, as a crash) and starts it again.
func (e *Env) KillPlugin(ctx context.Context, name string) error {
	procName := "plugin-" + name
	for _, pl := range e.opts.Plugins {
		if pl.Name == name && pl.Start(e).Name != "" {
			procName = pl.Start(e).Name
		}
	}
	p := e.latest(procName)
	if p == nil {
		return fmt.Errorf("kill plugin %s: not running", name)
	}
	p.Kill()
	<-p.Wait()
	sock := filepath.Join(e.PluginSockDir, name+".sock")
	_ = os.Remove(sock)
	np, err := e.Start(p.spec)
	if err != nil {
		return err
	}
	for {
		if _, err := os.Stat(sock); err == nil {
			return nil
		}
		if np.Exited() {
			return fmt.Errorf("plugin %s exited after a restart:\n%s", name, np.Tail(4000))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
