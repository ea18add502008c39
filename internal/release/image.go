package release

import (
	"bytes"
	"encoding/pem"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's fixed facts: the user Argo CD's CMP sidecars run as, where the binaries and
// the stock argocd-cmp-server's plugin.yaml go, and the entrypoint.
const (
	UID        = 999
	User       = "999:999"
	BinDir     = "usr/local/bin"
	PluginPath = "home/argocd/cmp-server/config/plugin.yaml"
	CAPath     = "etc/ssl/certs/ca-certificates.crt"
)

// Entrypoint is the image's entrypoint: the CLI and sidecar (the manifests set each
// container's command).
var Entrypoint = []string{"/" + BinDir + "/cmp-phase"}

// ImageSpec is what every platform's image shares.
type ImageSpec struct {
	Epoch      time.Time         // every file's mtime and the config's created
	CABundle   string            // PEM bundle installed at CAPath
	PluginYAML string            // the stock argocd-cmp-server's config
	Labels     map[string]string // config labels and index annotations
}

var (
	passwd = []byte("root:x:0:0:root:/root:/sbin/nologin\nargocd:x:999:999:argocd:/home/argocd:/sbin/nologin\n")
	group  = []byte("root:x:0:\nargocd:x:999:\n")
)

// baseEntries are the files every platform shares: the users, the CA bundle, the
// directories a read-only root filesystem needs to exist (the manifests mount /tmp).
func (s ImageSpec) baseEntries() []entry {
	return []entry{
		dirEntry("etc", 0o755, 0), dirEntry("etc/ssl", 0o755, 0), dirEntry("etc/ssl/certs", 0o755, 0),
		{Name: "etc/passwd", Mode: 0o644, Data: passwd}, {Name: "etc/group", Mode: 0o644, Data: group},
		{Name: CAPath, Mode: 0o644, Src: s.CABundle},
		dirEntry("home", 0o755, 0), dirEntry("home/argocd", 0o755, UID),
		dirEntry("home/argocd/cmp-server", 0o755, UID), dirEntry("home/argocd/cmp-server/config", 0o755, UID),
		dirEntry("home/argocd/cmp-server/plugins", 0o755, UID),
		dirEntry("tmp", 0o1777, 0),
		dirEntry("usr", 0o755, 0), dirEntry("usr/local", 0o755, 0), dirEntry(BinDir, 0o755, 0),
	}
}

// appEntries are one platform's binaries and the plugin config.
func (s ImageSpec) appEntries(bins Binaries) []entry {
	es := []entry{{Name: PluginPath, Mode: 0o644, Src: s.PluginYAML}}
	for name, path := range bins {
		es = append(es, entry{Name: BinDir + "/" + name, Mode: 0o755, Src: path})
	}
	return es
}

// checkCABundle fails unless file is a PEM bundle of certificates.
func checkCABundle(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("CA bundle: %w (fix: apt-get install ca-certificates, or name a PEM bundle)", err)
	}
	n := 0
	for blk, rest := pem.Decode(b); blk != nil; blk, rest = pem.Decode(rest) {
		if blk.Type == "CERTIFICATE" {
			n++
		}
	}
	if n < 10 {
		return fmt.Errorf("CA bundle %s holds %d certificates (fix: name the system's bundle, e.g. /etc/ssl/certs/ca-certificates.crt)", file, n)
	}
	return nil
}

// layer makes an OCI layer of entries.
func (s ImageSpec) layer(entries []entry) (v1.Layer, error) {
	gz, err := tarGz(entries, s.Epoch)
	if err != nil {
		return nil, err
	}
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(gz)), nil },
		tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("layer: %w", err)
	}
	return l, nil
}

// Image is one platform's image: the base layer, then the binaries' layer, run as UID.
func (s ImageSpec) Image(p Platform, bins Binaries) (v1.Image, error) {
	base, err := s.layer(s.baseEntries())
	if err != nil {
		return nil, err
	}
	app, err := s.layer(s.appEntries(bins))
	if err != nil {
		return nil, err
	}
	created := v1.Time{Time: s.Epoch.UTC()}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, MediaType: types.OCILayer, History: v1.History{Created: created, CreatedBy: "cmp-phase release: users, CA certificates, directories"}},
		mutate.Addendum{Layer: app, MediaType: types.OCILayer, History: v1.History{Created: created, CreatedBy: "cmp-phase release: cmp-phase, agent, plugin.yaml"}})
	if err != nil {
		return nil, fmt.Errorf("append layers: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = p.OS, p.Arch, created
	cf.Config = v1.Config{User: User, Entrypoint: Entrypoint, WorkingDir: "/home/argocd", Labels: s.Labels,
		Env: []string{"PATH=/" + BinDir + ":/usr/bin:/bin", "HOME=/home/argocd"}}
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return img, nil
}

// Index is the multi-platform index of imgs, in the order of ps.
func (s ImageSpec) Index(ps []Platform, imgs map[Platform]v1.Image) v1.ImageIndex {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range ps {
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: imgs[p],
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: p.OS, Architecture: p.Arch}}})
	}
	return mutate.Annotations(idx, s.Labels).(v1.ImageIndex)
}
