package release

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ManifestsArchive is the stamped manifests/ as one file to attach.
func ManifestsArchive(version string) string { return "cmp-phase_" + version + "_manifests.tar.gz" }

// HelmValues is the attached name of a stamped Helm values file (helm -f takes a URL).
func HelmValues(name string) string { return "helm-" + name }

// manifests writes the stamped copy of manifests/, its archive and the Helm values files.
func (r *run) manifests(context.Context) error {
	files := map[string]bool{ManifestsArchive(r.o.Version): true}
	for n := range r.files {
		files[n] = true
	}
	helm, err := filepath.Glob(filepath.Join(r.o.Root, Manifests, "helm", "*.yaml"))
	if err != nil {
		return fmt.Errorf("helm values: %w", err)
	}
	for _, h := range helm {
		files[HelmValues(filepath.Base(h))] = true
	}
	s := stamper{Image: r.o.Image, Digest: strings.TrimPrefix(r.pinned, r.o.Image+"@"), Version: r.o.Version, Download: DownloadBase, Files: files}
	dst := filepath.Join(r.o.Out, Manifests)
	if _, err := s.tree(filepath.Join(r.o.Root, Manifests), dst); err != nil {
		return err
	}
	for _, h := range helm {
		b, err := os.ReadFile(filepath.Join(dst, "helm", filepath.Base(h)))
		if err != nil {
			return fmt.Errorf("helm values: %w", err)
		}
		if err := os.WriteFile(filepath.Join(r.o.Out, HelmValues(filepath.Base(h))), b, 0o644); err != nil {
			return fmt.Errorf("helm values: %w", err)
		}
		r.add(HelmValues(filepath.Base(h)))
	}
	return r.archiveManifests(dst)
}

func (r *run) archiveManifests(dir string) error {
	var entries []entry
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(filepath.Dir(dir), p)
		if d.IsDir() {
			entries = append(entries, dirEntry(filepath.ToSlash(rel), 0o755, 0))
		} else {
			entries = append(entries, entry{Name: filepath.ToSlash(rel), Mode: 0o644, Src: p})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("manifests archive: %w", err)
	}
	if _, err := writeTarGz(filepath.Join(r.o.Out, ManifestsArchive(r.o.Version)), entries, r.o.Epoch); err != nil {
		return err
	}
	r.add(ManifestsArchive(r.o.Version))
	return nil
}

// sbom writes the SPDX SBOM of every binary built, the image and its CA bundle.
func (r *run) sbom(context.Context) error {
	var bs []sbomBinary
	for _, p := range r.o.ImagePlatforms {
		for _, name := range []string{"agent", "cmp-phase"} {
			bs = append(bs, sbomBinary{Name: name, Platform: p, Path: r.bins[p][name], InImage: true})
		}
	}
	for _, p := range r.o.CLIPlatforms {
		i := indexOf(bs, "cmp-phase", p)
		if i < 0 {
			bs = append(bs, sbomBinary{Name: "cmp-phase", Platform: p, Path: filepath.Join(r.work, p.OS+"_"+p.Arch, "cmp-phase")})
			i = len(bs) - 1
		}
		bs[i].Archive = CLIArchive(r.o.Version, p)
	}
	name := SBOMFile(r.o.Version)
	doc := sbom{Version: r.o.Version, Image: r.o.Image, ImageDigest: strings.TrimPrefix(r.pinned, r.o.Image+"@"),
		Namespace: DownloadBase + "/" + r.o.Version + "/" + name, Epoch: r.o.Epoch, Binaries: bs, CA: r.ca}
	if err := doc.write(filepath.Join(r.o.Out, name)); err != nil {
		return err
	}
	r.add(name)
	return nil
}

func indexOf(bs []sbomBinary, name string, p Platform) int {
	for i, b := range bs {
		if b.Name == name && b.Platform == p {
			return i
		}
	}
	return -1
}
