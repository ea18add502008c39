package framework

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/cmp-phase/cmp-phase/internal/release"
)

// ImageRepository is the repository the manifests name cmp-phase's image by.
const ImageRepository = "ghcr.io/cmp-phase/cmp-phase"

// BuildImageRoot writes the root filesystem of the release image for this machine (the one
// BuildBinaries takes the programs from) into a new directory under dir: every file,
// directory and link with its mode and owner, as a container runtime unpacks it. It is what
// RunContainer runs cmp-phase's containers in.
func BuildImageRoot(dir string) (string, error) {
	root, err := os.MkdirTemp(dir, "image-root-")
	if err != nil {
		return "", err
	}
	if err := os.Chmod(root, 0o755); err != nil { // an image's / (MkdirTemp makes it 0700)
		return "", err
	}
	err = withHostImage(context.Background(), func(idx v1.ImageIndex) error {
		img, err := release.PlatformImage(idx, hostPlatform())
		if err != nil {
			return err
		}
		rc := mutate.Extract(img)
		defer rc.Close()
		return untar(tar.NewReader(rc), root)
	})
	if err != nil {
		return "", fmt.Errorf("the image's root filesystem: %w", err)
	}
	return root, nil
}

func untar(tr *tar.Reader, root string) error {
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		name := filepath.Clean("/" + h.Name)
		if strings.Contains(name, "..") {
			return fmt.Errorf("image entry %q leaves the root", h.Name)
		}
		if err := unpack(tr, h, filepath.Join(root, name)); err != nil {
			return fmt.Errorf("image entry %s: %w", h.Name, err)
		}
	}
}

func unpack(tr *tar.Reader, h *tar.Header, out string) error {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(h.Mode).Perm()
	switch h.Typeflag {
	case tar.TypeDir:
		if err := os.MkdirAll(out, mode); err != nil {
			return err
		}
	case tar.TypeReg:
		if err := writeTarFile(tr, out, mode); err != nil {
			return err
		}
	case tar.TypeSymlink:
		return os.Symlink(h.Linkname, out)
	default:
		return nil
	}
	if err := os.Chmod(out, mode|stickyOf(h)); err != nil {
		return err
	}
	return os.Lchown(out, h.Uid, h.Gid)
}

func stickyOf(h *tar.Header) os.FileMode {
	if h.Mode&01000 != 0 {
		return os.ModeSticky
	}
	return 0
}

func writeTarFile(r io.Reader, out string, mode os.FileMode) error {
	f, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
