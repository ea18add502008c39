package framework

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// GitServer serves one repository over smart HTTP on loopback (git http-backend behind
// net/http/cgi). Tests commit straight into its work tree; Argo CD fetches it over HTTP.
type GitServer struct {
	URL     string // http://127.0.0.1:PORT/repo
	WorkDir string
	srv     *http.Server
	mu      sync.Mutex
}

func (e *Env) startGit(context.Context) error {
	root := filepath.Join(e.Dir, "git")
	work := filepath.Join(root, "repo")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return fmt.Errorf("git dir: %w", err)
	}
	g := &GitServer{WorkDir: work}
	if _, err := g.git("init", "-q", "-b", "main"); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(work, "README.md"), []byte("test repository\n")); err != nil {
		return err
	}
	if _, err := g.Commit("initial", nil); err != nil {
		return err
	}
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return fmt.Errorf("git not found: %w", err)
	}
	h := &cgi.Handler{
		Path: gitPath, Args: []string{"http-backend"},
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"},
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("git listen: %w", err)
	}
	g.URL = "http://" + l.Addr().String() + "/repo"
	g.srv = &http.Server{Handler: h}
	go func() { _ = g.srv.Serve(l) }()
	e.Git = g
	return nil
}

func (g *GitServer) git(args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = g.WorkDir
	cmd.Env = append(baseEnv(), "GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@example.com",
		"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@example.com", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// Commit writes files (path relative to the repo root → content; empty content deletes),
// commits them and returns the new commit SHA.
func (g *GitServer) Commit(msg string, files map[string]string) (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for rel, content := range files {
		p := filepath.Join(g.WorkDir, filepath.FromSlash(rel))
		if content == "" {
			if err := os.RemoveAll(p); err != nil {
				return "", fmt.Errorf("remove %s: %w", rel, err)
			}
			continue
		}
		if err := writeFile(p, []byte(content)); err != nil {
			return "", err
		}
	}
	if _, err := g.git("add", "-A"); err != nil {
		return "", err
	}
	if _, err := g.git("commit", "-q", "--allow-empty", "-m", msg); err != nil {
		return "", err
	}
	return g.git("rev-parse", "HEAD")
}

// Close stops serving.
func (g *GitServer) Close() { _ = g.srv.Close() }

// Head is the commit the repository is at.
func (g *GitServer) Head() (string, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.git("rev-parse", "HEAD")
}

// IsAncestor reports whether commit is an ancestor of head.
func (g *GitServer) IsAncestor(commit, head string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, err := g.git("merge-base", "--is-ancestor", commit, head)
	return err == nil
}
