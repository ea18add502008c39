package framework

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// sourceKey hashes what the image is built from: go.mod, go.sum, plugin.yaml, every file
// under cmd/ and internal/ but tests and testdata, the Go version, the platform, the CA
// bundle and the agent's tags. The same key means the same image.
func sourceKey(root string, tags ...string) (string, error) {
	h := sha256.New()
	fmt.Fprintln(h, runtime.Version(), runtime.GOARCH, strings.Join(tags, ","))
	files := []string{"go.mod", "go.sum", "plugin.yaml", "/etc/ssl/certs/ca-certificates.crt"}
	for _, dir := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && d.Name() == "testdata":
				return filepath.SkipDir
			case !d.IsDir() && !strings.HasSuffix(p, "_test.go"):
				rel, _ := filepath.Rel(root, p)
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("source hash: %w", err)
		}
	}
	for _, f := range files {
		if !filepath.IsAbs(f) {
			f = filepath.Join(root, f)
		}
		if err := hashFile(h, f); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:24], nil
}

func hashFile(h io.Writer, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return fmt.Errorf("source hash: %w", err)
	}
	defer f.Close()
	fmt.Fprintln(h, file)
	if _, err := io.Copy(h, f); err != nil {
		return fmt.Errorf("source hash: %w", err)
	}
	return nil
}

// lockDir takes dir's lock (creating dir), so the suites that start together build the
// image once; the returned func releases it.
func lockDir(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("image cache: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("image cache lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("image cache lock: %w", err)
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

// pruneCache removes every cached image but key's (and any build a crash left), holding
// the lock.
func pruneCache(cache, key string) {
	entries, _ := os.ReadDir(cache)
	for _, e := range entries {
		if e.IsDir() && e.Name() != key {
			_ = os.RemoveAll(filepath.Join(cache, e.Name()))
		}
	}
}
