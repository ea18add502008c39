package content

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/contract"
)

const sha = "0123456789abcdef0123456789abcdef01234567"

// tree writes files (path → content) under a new temporary directory.
func tree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, c := range files {
		write(t, root, p, c)
	}
	return root
}

func write(t testing.TB, root, p, c string) {
	t.Helper()
	f := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f, []byte(c), 0o644); err != nil {
		t.Fatal(err)
	}
}

func link(t testing.TB, root, p, target string) {
	t.Helper()
	f := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, f); err != nil {
		t.Fatal(err)
	}
}

func uses(patterns ...string) []Use {
	var us []Use
	for _, p := range patterns {
		us = append(us, Use{Child: "c", Pattern: p, From: "spec.source.path"})
	}
	return us
}

// digest computes a digest without the cache.
func digest(t testing.TB, root string, us []Use) string {
	t.Helper()
	d, err := NewDigester(1, Limits{}).Digest(root, contract.RevisionStreamed, us)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func base() map[string]string {
	return map[string]string{
		"apps/a/kustomization.yaml": "resources: [d.yaml]",
		"apps/a/d.yaml":             "kind: Deployment",
		"apps/b/d.yaml":             "kind: Deployment\nname: b",
		"envs/prod.yaml":            "replicas: 3",
		"envs/dev.yaml":             "replicas: 1",
		"envs/eu/values.yaml":       "region: eu",
		"README.md":                 "hello",
		".git/HEAD":                 "ref: refs/heads/main",
	}
}

func TestDigestUnchanged(t *testing.T) {
	us := uses("apps/a", "envs/*.yaml")
	root := tree(t, base())
	before := digest(t, root, us)
	if len(before) != 32 {
		t.Fatalf("digest %q: want 32 hex digits", before)
	}
	write(t, root, "apps/b/d.yaml", "changed")
	write(t, root, "README.md", "changed")
	write(t, root, "envs/eu/values.yaml", "changed") // "*" does not cross "/"
	write(t, root, "apps/new.yaml", "new")
	write(t, root, ".git/HEAD", "changed")
	if after := digest(t, root, us); after != before {
		t.Fatalf("digest changed from %s to %s for files no pattern names", before, after)
	}
	if again := digest(t, tree(t, base()), us); again != before {
		t.Fatalf("another tree with the same matched files: %s, want %s", again, before)
	}
}

func TestDigestChanges(t *testing.T) {
	us := uses("apps/a", "envs/*.yaml", "envs/e?")
	for _, tc := range []struct {
		name   string
		change func(root string)
	}{
		{"content", func(r string) { write(t, r, "apps/a/d.yaml", "kind: StatefulSet") }},
		{"new file", func(r string) { write(t, r, "apps/a/extra/s.yaml", "kind: Service") }},
		{"removed file", func(r string) { os.Remove(filepath.Join(r, "apps/a/d.yaml")) }},
		{"rename", func(r string) { os.Rename(filepath.Join(r, "apps/a/d.yaml"), filepath.Join(r, "apps/a/e.yaml")) }},
		{"file matched by a glob", func(r string) { write(t, r, "envs/prod.yaml", "replicas: 4") }},
		{"new file matched by a glob", func(r string) { write(t, r, "envs/test.yaml", "replicas: 0") }},
		{"file under a directory a glob matches", func(r string) { write(t, r, "envs/eu/values.yaml", "x") }},
		{"empty content", func(r string) { write(t, r, "apps/a/d.yaml", "") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := tree(t, base())
			before := digest(t, root, us)
			tc.change(root)
			if after := digest(t, root, us); after == before {
				t.Fatalf("digest %s unchanged", before)
			}
		})
	}
}

func TestDigestSameFilesSameDigest(t *testing.T) {
	a, b := base(), base()
	b["other/unrelated.yaml"] = "x"
	b["apps/b/d.yaml"] = "different"
	us := uses("apps/a", "envs/prod.yaml")
	if da, db := digest(t, tree(t, a), us), digest(t, tree(t, b), us); da != db {
		t.Fatalf("trees with the same matched files: %s != %s", da, db)
	}
}

func TestDigestDedupAndOrder(t *testing.T) {
	root := tree(t, base())
	one := digest(t, root, uses("apps/a", "envs/prod.yaml", "apps/a/d.yaml"))
	other := append(uses("envs/prod.yaml", "apps/a/d.yaml"),
		Use{Child: "x", Pattern: "apps/./a/", From: "manifest-generate-paths"},
		Use{Child: "y", Pattern: "apps/a", From: "spec.sources[1].path"})
	if two := digest(t, root, other); one != two {
		t.Fatalf("same pattern set, different digests: %s, %s", one, two)
	}
	// A file named by two patterns is hashed once, yet the pattern set is part of the digest.
	if three := digest(t, root, uses("apps/a", "envs/prod.yaml")); three == one {
		t.Fatal("a different pattern set gave the same digest")
	}
}

func TestDigestRoot(t *testing.T) {
	root := tree(t, base())
	before := digest(t, root, uses("."))
	write(t, root, ".git/index", "changed")
	if digest(t, root, uses("")) != before {
		t.Fatal(`"" and "." differ, or .git is hashed`)
	}
	write(t, root, "README.md", "changed")
	if digest(t, root, uses(".")) == before {
		t.Fatal("a change anywhere did not change the digest of the whole repository")
	}
}

// TestDigestStable pins the digest format: changing it starts a rollout of every parent.
// want was computed independently: the first 16 bytes of the SHA-256 of
// "cmp-phase content v1\x00" "P\x00a\x00" "P\x00b.yaml\x00", then for each file in order
// "F\x00<path>\x00" and the SHA-256 of its bytes.
func TestDigestStable(t *testing.T) {
	root := tree(t, map[string]string{"a/x.yaml": "x", "a/y/z.yaml": "z", "b.yaml": "b"})
	const want = "138ddb75b390e730a9da8fbe737072c8"
	if got := digest(t, root, uses("a", "b.yaml")); got != want {
		t.Fatalf("digest = %s, want %s", got, want)
	}
}
