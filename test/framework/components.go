package framework

import (
	"context"
	"os"
	"strconv"
)

// repoServerPlaintext are the repo-server's flags for plaintext gRPC. From v3.5 on it also
// reads a client CA for mTLS from a default path unless --client-ca-path is empty (and
// refuses a path with --disable-tls).
func (e *Env) repoServerPlaintext() []string {
	return []string{"--disable-tls", "--client-ca-path", ""}
}

// startArgoCD starts argocd-repo-server, argocd-application-controller, argocd-server and,
// when asked, argocd-applicationset-controller with progressive syncs.
func (e *Env) startArgoCD(ctx context.Context) error {
	ports := make([]int, 8)
	for i := range ports {
		p, err := FreePort()
		if err != nil {
			return err
		}
		ports[i] = p
	}
	e.repoAddr = "127.0.0.1:" + strconv.Itoa(ports[0])
	e.ArgoServer = "127.0.0.1:" + strconv.Itoa(ports[2])
	// The repo-server runs git through Argo CD's git-verify-wrapper.sh, which must be on PATH.
	path := "PATH=" + e.Tools.ArgoDir + ":" + e.Tools.KustomizeDir + ":" + os.Getenv("PATH")
	exclusions, err := pluginTarExclusions()
	if err != nil {
		return err
	}
	repo, err := e.Start(ProcSpec{Name: "argocd-repo-server", Path: e.Tools.ArgoCD, Args: append([]string{
		"--port", strconv.Itoa(ports[0]), "--address", "127.0.0.1",
		"--metrics-port", strconv.Itoa(ports[1]), "--metrics-address", "127.0.0.1",
		"--redis", e.redisAddr, "--revision-cache-expiration", "5s", "--loglevel", "info",
	}, e.repoServerPlaintext()...), Env: append(e.argoEnv("argocd-repo-server"), path, exclusions)})
	if err != nil {
		return err
	}
	if err := WaitTCP(ctx, repo, e.repoAddr); err != nil {
		return err
	}
	ctrlArgs := []string{
		"--repo-server", e.repoAddr, "--repo-server-plaintext", "--redis", e.redisAddr,
		"--metrics-port", strconv.Itoa(ports[3]),
		"--app-resync", strconv.Itoa(int(e.opts.AppResync.Seconds())),
		"--status-processors", "4", "--operation-processors", "4",
		"--self-heal-timeout-seconds", "2", "--loglevel", "info",
	}
	if e.opts.AppResyncJitter > 0 {
		ctrlArgs = append(ctrlArgs, "--app-resync-jitter", strconv.Itoa(int(e.opts.AppResyncJitter.Seconds())))
	}
	ctrl, err := e.Start(ProcSpec{Name: "argocd-application-controller", Path: e.Tools.ArgoCD, Args: ctrlArgs, Env: e.argoEnv("argocd-application-controller")})
	if err != nil {
		return err
	}
	// Its metrics port is the sign it is up (and a start that failed shows here, not later).
	if err := WaitTCP(ctx, ctrl, "127.0.0.1:"+strconv.Itoa(ports[3])); err != nil {
		return err
	}
	server, err := e.Start(ProcSpec{Name: "argocd-server", Path: e.Tools.ArgoCD, Args: []string{
		"--insecure", "--address", "127.0.0.1", "--port", strconv.Itoa(ports[2]),
		"--metrics-port", strconv.Itoa(ports[4]),
		"--repo-server", e.repoAddr, "--repo-server-plaintext", "--redis", e.redisAddr,
		"--dex-server", "http://127.0.0.1:1", "--staticassets", e.Dir + "/tmp", "--loglevel", "info",
		// The proxy extension serves /extensions/<name>/ only once extension.config names
		// one (the UI extension's test does): on, as an install with the UI extension runs.
		"--enable-proxy-extension",
	}, Env: e.argoEnv("argocd-server")})
	if err != nil {
		return err
	}
	if e.opts.ApplicationSetController {
		if _, err := e.StartApplicationSetController(e.repoAddr, ports[5:8], nil, nil); err != nil {
			return err
		}
	}
	return WaitTCP(ctx, server, e.ArgoServer)
}

// StartApplicationSetController starts argocd-applicationset-controller with progressive
// syncs on and its metrics, probe and webhook on the three ports; args and env come after
// the stack's own.
func (e *Env) StartApplicationSetController(repoAddr string, ports []int, args, env []string) (*Proc, error) {
	return e.Start(ProcSpec{Name: "argocd-applicationset-controller", Path: e.Tools.ArgoCD, Args: append([]string{
		"--argocd-repo-server", repoAddr, "--repo-server-plaintext",
		"--metrics-addr", "127.0.0.1:" + strconv.Itoa(ports[0]),
		"--probe-addr", "127.0.0.1:" + strconv.Itoa(ports[1]),
		"--webhook-addr", "127.0.0.1:" + strconv.Itoa(ports[2]),
		"--enable-progressive-syncs", "--loglevel", "info",
	}, args...), Env: append(e.argoEnv("argocd-applicationset-controller"), env...)})
}
