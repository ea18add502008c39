package release

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// refNameAnnotation is how an OCI layout names what its index.json lists.
const refNameAnnotation = "org.opencontainers.image.ref.name"

// WriteLayout writes idx as the one entry of a new OCI layout at dir, named ref (the
// release version), for `push` or any OCI tool (skopeo, crane, oras) to copy.
func WriteLayout(dir, ref string, idx v1.ImageIndex) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("old layout: %w", err)
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("OCI layout %s: %w", dir, err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{refNameAnnotation: ref})); err != nil {
		return fmt.Errorf("OCI layout %s: %w", dir, err)
	}
	// The layout is read by whoever pushes it: files 0644 (the library writes some 0600 or 0755).
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chmod(p, 0o644)
	})
}

// ReadLayout returns the image index an OCI layout written by WriteLayout holds.
func ReadLayout(dir string) (v1.ImageIndex, error) {
	top, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, fmt.Errorf("OCI layout %s: %w (fix: build the release first)", dir, err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		return nil, fmt.Errorf("OCI layout %s: %w", dir, err)
	}
	if len(m.Manifests) != 1 {
		return nil, fmt.Errorf("OCI layout %s lists %d entries, want the release's one index (fix: build the release into an empty directory)", dir, len(m.Manifests))
	}
	idx, err := top.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		return nil, fmt.Errorf("OCI layout %s: %w", dir, err)
	}
	return idx, nil
}

// Push writes the index of the layout at dir to ref (a tag) with the credentials of
// ~/.docker/config.json (or a credential helper), and returns the digest it pushed. The
// registry must answer ref with that digest: the manifests pin it.
func Push(ctx context.Context, dir, ref string, opts ...remote.Option) (v1.Hash, error) {
	idx, err := ReadLayout(dir)
	if err != nil {
		return v1.Hash{}, err
	}
	want, err := idx.Digest()
	if err != nil {
		return v1.Hash{}, fmt.Errorf("index digest: %w", err)
	}
	tag, err := name.NewTag(ref)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("push to %q: %w (fix: name a tag, e.g. ghcr.io/cmp-phase/cmp-phase:v1.2.3)", ref, err)
	}
	opts = append([]remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)}, opts...)
	if err := remote.WriteIndex(tag, idx, opts...); err != nil {
		return v1.Hash{}, fmt.Errorf("push %s: %w (fix: log in to the registry, e.g. docker login or crane auth login)", ref, err)
	}
	got, err := remote.Head(tag, opts...)
	if err != nil {
		return v1.Hash{}, fmt.Errorf("read back %s: %w", ref, err)
	}
	if got.Digest != want {
		return v1.Hash{}, errors.New("registry answers " + ref + " with " + got.Digest.String() + ", not the pushed " + want.String() + " (fix: the registry rewrote the index; push to an OCI-conformant registry)")
	}
	return want, nil
}
