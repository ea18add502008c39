package release

import (
	"fmt"
	"strings"
)

// Platform is a Go target: GOOS and GOARCH.
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "/" + p.Arch }

// ImagePlatforms are the platforms of the image; CLIPlatforms those of the CLI archives.
var (
	ImagePlatforms = []Platform{{"linux", "amd64"}, {"linux", "arm64"}}
	CLIPlatforms   = []Platform{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}}
)

// ParsePlatforms reads "linux/amd64,linux/arm64".
func ParsePlatforms(s string) ([]Platform, error) {
	var ps []Platform
	for _, f := range strings.Split(s, ",") {
		os, arch, ok := strings.Cut(strings.TrimSpace(f), "/")
		if !ok || os == "" || arch == "" {
			return nil, fmt.Errorf("platform %q is not os/arch (fix: e.g. linux/amd64)", f)
		}
		ps = append(ps, Platform{os, arch})
	}
	return ps, nil
}
