package content

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

// wantErr runs Digest and checks the error holds every one of parts.
func wantErr(t *testing.T, d *Digester, root string, us []Use, parts ...string) {
	t.Helper()
	got, err := d.Digest(root, "abc123", us)
	if err == nil {
		t.Fatalf("digest %s, want an error", got)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

func TestDigestErrors(t *testing.T) {
	root := tree(t, base())
	link(t, root, "apps/out/abs", "/etc/passwd")
	link(t, root, "apps/out2/rel", "../../../outside")
	link(t, root, "apps/dangling/ok", "nothing-here")
	link(t, root, "apps/through/dir", "../../..")
	d := NewDigester(8, Limits{})
	prod := Use{Child: "prod-1", Pattern: "apps/prod", From: "spec.source.path"}
	wantErr(t, d, root, []Use{prod}, `child prod-1: spec.source.path "apps/prod": no such path in the repository at commit abc123 (fix: create it, or correct the path in the spec's template)`)
	wantErr(t, d, root, []Use{{Child: "c", Pattern: "envs/*.json", From: "manifest-generate-paths"}},
		`child c: manifest-generate-paths "envs/*.json": the pattern matches no path`, "fix: add a matching file")
	wantErr(t, d, root, []Use{{Child: "c", Pattern: "nowhere/*.yaml", From: "x"}}, "matches no path")
	wantErr(t, d, root, []Use{{Child: "c", Pattern: "../x", From: "spec.sources[0].helm.valueFiles[2]"}},
		`child c: spec.sources[0].helm.valueFiles[2] "../x"`, "leaves the repository", "fix: use a path inside")
	wantErr(t, d, root, uses("apps/out"), `symlink "apps/out/abs" points outside the repository`, "fix: make the link relative")
	wantErr(t, d, root, uses("apps/out2"), `symlink "apps/out2/rel" points outside the repository`)
	wantErr(t, d, root, uses("apps/through/dir/etc"), `symlink "apps/through/dir" points outside the repository`)
	wantErr(t, d, root, uses("apps/a/d.yaml/x"), "no such path")
	wantErr(t, d, root, uses(".git"), "git's metadata")
	wantErr(t, d, root, uses("apps/.git/config"), "git's metadata")
	if _, err := d.Digest(root, "abc123", uses("apps/dangling")); err != nil {
		t.Fatalf("a dangling link inside the repository: %v", err)
	}
	if _, err := d.Digest(filepath.Join(root, "nope"), sha, uses(".")); err == nil {
		t.Fatal("no error for a missing checkout")
	}
}

func TestDigestSymlinks(t *testing.T) {
	root := tree(t, base())
	link(t, root, "apps/c/d.yaml", "../a/d.yaml")
	link(t, root, "apps/c/shared", "../../envs")
	us := uses("apps/c")
	before := digest(t, root, us)
	write(t, root, "apps/a/d.yaml", "changed")
	mid := digest(t, root, us)
	if mid == before {
		t.Fatal("changing a linked file did not change the digest")
	}
	write(t, root, "envs/eu/values.yaml", "changed")
	if digest(t, root, us) == mid {
		t.Fatal("changing a file in a linked directory did not change the digest")
	}
	os.Remove(filepath.Join(root, "apps/c/d.yaml"))
	link(t, root, "apps/c/d.yaml", "../b/d.yaml")
	if digest(t, root, us) == mid {
		t.Fatal("re-pointing a link did not change the digest")
	}
}

func TestDigestSymlinkLoops(t *testing.T) {
	root := tree(t, base())
	link(t, root, "apps/a/self", ".")
	link(t, root, "apps/a/up", "..")
	link(t, root, "loop/l1", "l2")
	link(t, root, "loop/l2", "l1")
	errs := make(chan error, 2)
	go func() {
		d := NewDigester(1, Limits{})
		_, err := d.Digest(root, "", uses("apps/a", "apps/*"))
		errs <- err
		_, err = d.Digest(root, "", uses("loop"))
		errs <- err
	}()
	for i, want := range []string{"", `symlink "loop/l`} {
		select {
		case err := <-errs:
			if (err == nil) != (want == "") || err != nil && !strings.Contains(err.Error(), want) {
				t.Errorf("digest %d: error %v, want %q", i, err, want)
			}
			if err != nil && !strings.Contains(err.Error(), "is part of a loop of symbolic links (fix: break the loop)") {
				t.Errorf("error %q does not name the loop", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("digest of a tree with symlink loops hangs")
		}
	}
}

func TestDigestLimits(t *testing.T) {
	root := tree(t, base())
	write(t, root, "big/f.bin", strings.Repeat("x", 1000))
	wantErr(t, NewDigester(1, Limits{MaxFiles: 3}), root, uses("."),
		"too large for content phasing", "more than 3 files and directories (limit MaxFiles)", "pinCommits: false")
	wantErr(t, NewDigester(1, Limits{MaxBytes: 100}), root, uses("big"),
		`child c: spec.source.path "big"`, "more than 100 bytes", "limit MaxBytes", "narrow the paths")
	if _, err := NewDigester(1, Limits{MaxFiles: 100, MaxBytes: 1000}).Digest(root, "", uses("big")); err != nil {
		t.Fatalf("at the limits: %v", err)
	}
}

func TestDigestUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	root := tree(t, base())
	os.Chmod(filepath.Join(root, "apps/a/d.yaml"), 0)
	wantErr(t, NewDigester(1, Limits{}), root, uses("apps/a"), "apps/a/d.yaml", "permission denied")
}

func TestDigestCache(t *testing.T) {
	root := tree(t, base())
	d := NewDigester(8, Limits{})
	us := uses("apps/a", "envs/*.yaml")
	first, err := d.Digest(root, sha, us)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	// Same commit and patterns, in another order: no file is read.
	if again, err := d.Digest(root, sha, uses("envs/*.yaml", "apps/a", "apps/a")); err != nil || again != first {
		t.Fatalf("cached digest = %s, %v; want %s", again, err, first)
	}
	for _, commit := range []string{contract.RevisionStreamed, "", sha[:39], strings.Repeat("g", 40)} {
		if _, err := d.Digest(root, commit, us); err == nil {
			t.Errorf("commit %q: digest from the cache", commit)
		}
	}
	if _, err := d.Digest(root, sha, uses("apps/a")); err == nil {
		t.Error("other patterns: digest from the cache")
	}
}

func TestDigestConcurrent(t *testing.T) {
	root := tree(t, base())
	d := NewDigester(2, Limits{})
	want := digest(t, root, uses("."))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			commit := strings.Repeat(string("0123456789abcdef"[i%3]), 64)
			if got, err := d.Digest(root, commit, uses(".")); err != nil || got != want {
				t.Errorf("digest = %s, %v; want %s", got, err, want)
			}
		})
	}
	wg.Wait()
}
