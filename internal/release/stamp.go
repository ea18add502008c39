package release

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// stamper writes the release's copy of manifests/: every reference to the image by tag
// becomes one by digest, and every release download URL names the release's version. It
// fails closed: a reference it cannot pin, or a download URL naming a file the release
// lacks, is an error naming the file and line.
type stamper struct {
	Image    string          // e.g. ghcr.io/cmp-phase/cmp-phase
	Digest   string          // sha256:<hex>, the index's
	Version  string          // the release
	Download string          // e.g. https://github.com/cmp-phase/cmp-phase/releases/download
	Files    map[string]bool // the release's files, which download URLs may name
}

// Pinned is the image reference the stamped manifests carry.
func (s stamper) Pinned() string { return s.Image + "@" + s.Digest }

// tree copies src to dst, stamping the YAML files, and returns how many image references
// it pinned (none is an error: the manifests changed shape under it).
func (s stamper) tree(src, dst string) (int, error) {
	pinned := 0
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if ext := filepath.Ext(p); ext == ".yaml" || ext == ".yml" {
			var n int
			if b, n, err = s.file(filepath.ToSlash(rel), b); err != nil {
				return err
			}
			pinned += n
		}
		return os.WriteFile(out, b, 0o644)
	})
	if err != nil {
		return 0, fmt.Errorf("stamp manifests: %w", err)
	}
	if pinned == 0 {
		return 0, fmt.Errorf("stamp manifests: no file under %s names %s (fix: teach internal/release/stamp.go how the manifests name the image now)", src, s.Image)
	}
	return pinned, nil
}

// file stamps one YAML file (name for errors) and returns how many image references it pinned.
func (s stamper) file(name string, b []byte) ([]byte, int, error) {
	text := string(b)
	imageRe := regexp.MustCompile(`(?m)^(\s*(?:-\s+)?image:[ \t]*["']?)` + regexp.QuoteMeta(s.Image) +
		`(?::[A-Za-z0-9_][A-Za-z0-9_.-]*)?(?:@sha256:[0-9a-f]{64})?(["']?[ \t]*(?:#.*)?)$`)
	n := len(imageRe.FindAllStringIndex(text, -1))
	text = imageRe.ReplaceAllString(text, "${1}"+s.Pinned()+"${2}")
	if isKustomization(name) {
		var k int
		var err error
		if text, k, err = s.kustomizeImages(name, text); err != nil {
			return nil, 0, err
		}
		n += k
	}
	dlRe := regexp.MustCompile(regexp.QuoteMeta(s.Download) + `/[^/\s"']+/`)
	text = dlRe.ReplaceAllString(text, s.Download+"/"+s.Version+"/")
	return []byte(text), n, s.verify(name, text)
}

func isKustomization(name string) bool {
	switch filepath.Base(name) {
	case "kustomization.yaml", "kustomization.yml", "Kustomization":
		return true
	}
	return false
}

// verify fails on a line that names the image but not by the digest (a kustomize
// images entry's newName or name excepted: kustomizeImages pinned its entry), and on a download URL
// naming another version or a file the release lacks.
func (s stamper) verify(name, text string) error {
	dlRe := regexp.MustCompile(regexp.QuoteMeta(s.Download) + `/([^/\s"']+)/([^\s"'#]+)`)
	newName := regexp.MustCompile(`^\s*(?:-\s+)?(?:newName|name):\s*["']?` + regexp.QuoteMeta(s.Image) + `["']?\s*$`)
	for i, line := range strings.Split(text, "\n") {
		code := line
		if strings.HasPrefix(strings.TrimSpace(code), "#") {
			continue
		}
		if c := strings.Index(code, " #"); c >= 0 {
			code = code[:c]
		}
		if strings.Contains(code, s.Image) && !newName.MatchString(code) &&
			strings.Count(code, s.Image) != strings.Count(code, s.Pinned()) {
			return fmt.Errorf("%s:%d names %s, not by the release's digest (fix: teach internal/release/stamp.go this form): %s", name, i+1, s.Image, strings.TrimSpace(line))
		}
		for _, m := range dlRe.FindAllStringSubmatch(code, -1) {
			if m[1] != s.Version || !s.Files[m[2]] {
				return fmt.Errorf("%s:%d downloads %s/%s, which this release does not make (fix: name a file of the release, or make it)", name, i+1, m[1], m[2])
			}
		}
	}
	return nil
}
