package release

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
)

// PlatformImage is the image of p in idx.
func PlatformImage(idx v1.ImageIndex, p Platform) (v1.Image, error) {
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	for _, d := range m.Manifests {
		if d.Platform != nil && d.Platform.OS == p.OS && d.Platform.Architecture == p.Arch {
			img, err := idx.Image(d.Digest)
			if err != nil {
				return nil, fmt.Errorf("image of %s: %w", p, err)
			}
			return img, nil
		}
	}
	return nil, fmt.Errorf("the index has no image for %s (fix: build the release for %s)", p, p)
}

// Extract writes the files of img's flattened filesystem named in want (image path, no
// leading slash → file on disk), keeping their mode, and fails naming any it lacks.
func Extract(img v1.Image, want map[string]string) error {
	rc := mutate.Extract(img)
	defer rc.Close()
	left := map[string]string{}
	for k, v := range want {
		left[k] = v
	}
	tr := tar.NewReader(rc)
	for len(left) > 0 {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("read image layers: %w", err)
		}
		out, ok := left[strings.TrimPrefix(h.Name, "/")]
		if !ok || h.Typeflag != tar.TypeReg {
			continue
		}
		if err := writeFile(out, tr, os.FileMode(h.Mode).Perm()); err != nil {
			return err
		}
		delete(left, strings.TrimPrefix(h.Name, "/"))
	}
	if len(left) > 0 {
		missing := make([]string, 0, len(left))
		for k := range left {
			missing = append(missing, k)
		}
		sort.Strings(missing)
		return fmt.Errorf("the image lacks %s (fix: the image's layers, internal/release/image.go)", strings.Join(missing, ", "))
	}
	return nil
}

func writeFile(out string, r io.Reader, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	f, err := os.OpenFile(out, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, mode)
	if err != nil {
		return fmt.Errorf("extract: %w", err)
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return fmt.Errorf("extract %s: %w", out, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("extract %s: %w", out, err)
	}
	return nil
}
