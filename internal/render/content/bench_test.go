package content

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchRepo writes a synthetic repository: 1,000 app directories of 19 files each,
// 10 shared bases of 95 files and 50 environment files, 20,000 files and about 50 MB in
// all; and the uses of 1,000 children, each deploying its own directory, a tenth of them
// also a shared base and an environment glob through manifest-generate-paths.
func benchRepo(b *testing.B) (root string, us []Use, size int64) {
	root = b.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	put := func(dir string, n int) {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			b.Fatal(err)
		}
		for i := range n {
			body := strings.Repeat(fmt.Sprintf("key-%d: value-%d\n", i, r.Int()), 1+r.IntN(140))
			size += int64(len(body))
			if err := os.WriteFile(filepath.Join(root, dir, fmt.Sprintf("f-%02d.yaml", i)), []byte(body), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	for i := range 1000 {
		put(fmt.Sprintf("apps/app-%04d", i), 19)
		child := fmt.Sprintf("child-%04d", i)
		us = append(us, Use{Child: child, Pattern: fmt.Sprintf("apps/app-%04d", i), From: "spec.source.path"})
		if i%10 == 0 {
			us = append(us,
				Use{Child: child, Pattern: fmt.Sprintf("bases/base-%02d", i/100), From: "manifest-generate-paths"},
				Use{Child: child, Pattern: "envs/*.yaml", From: "manifest-generate-paths"})
		}
	}
	for i := range 10 {
		put(fmt.Sprintf("bases/base-%02d", i), 95)
	}
	put("envs", 50)
	return root, us, size
}

// BenchmarkContentDigest: cold reads and hashes every file (a new commit each iteration);
// warm is a second call for the same commit, served by the cache.
func BenchmarkContentDigest(b *testing.B) {
	root, us, size := benchRepo(b)
	b.Run("cold", func(b *testing.B) {
		d := NewDigester(16, Limits{})
		b.SetBytes(size)
		i := 0
		for b.Loop() {
			i++
			if _, err := d.Digest(root, fmt.Sprintf("%040x", i), us); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		d := NewDigester(16, Limits{})
		if _, err := d.Digest(root, sha, us); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := d.Digest(root, sha, us); err != nil {
				b.Fatal(err)
			}
		}
	})
}
