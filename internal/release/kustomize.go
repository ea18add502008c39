package release

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// kustomizeImages pins the kustomization's images entries that name the image (newName,
// or name with no newName): the newTag line becomes digest, keeping every other line, so
// comments and layout survive. It returns how many entries it pinned.
func (s stamper) kustomizeImages(name, text string) (string, int, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return "", 0, fmt.Errorf("%s: %w", name, err)
	}
	images := mapValue(docRoot(&doc), "images")
	if images == nil {
		return text, 0, nil
	}
	lines := strings.Split(text, "\n")
	n := 0
	for _, item := range images.Content {
		img := mapValue(item, "newName")
		if img == nil {
			img = mapValue(item, "name")
		}
		if img == nil || img.Value != s.Image {
			continue
		}
		if item.Style&yaml.FlowStyle != 0 {
			return "", 0, fmt.Errorf("%s:%d: the images entry of %s is in flow style (fix: write it as a block, one key a line)", name, item.Line, s.Image)
		}
		tag, digest := mapKey(item, "newTag"), mapKey(item, "digest")
		switch {
		case tag != nil && digest != nil:
			return "", 0, fmt.Errorf("%s:%d: the images entry of %s has both newTag and digest (fix: keep newTag only)", name, item.Line, s.Image)
		case tag == nil && digest == nil:
			return "", 0, fmt.Errorf("%s:%d: the images entry of %s has no newTag to pin (fix: add newTag: <version>)", name, item.Line, s.Image)
		case tag == nil:
			tag = digest
		}
		l := tag.Line - 1
		lines[l] = lines[l][:tag.Column-1] + "digest: " + s.Digest
		n++
	}
	return strings.Join(lines, "\n"), n, nil
}

func docRoot(doc *yaml.Node) *yaml.Node {
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		return doc.Content[0]
	}
	return doc
}

// mapKey is the key node of key in the mapping m, or nil.
func mapKey(m *yaml.Node, key string) *yaml.Node {
	if i := mapIndex(m, key); i >= 0 {
		return m.Content[i]
	}
	return nil
}

// mapValue is the value node of key in the mapping m, or nil.
func mapValue(m *yaml.Node, key string) *yaml.Node {
	if i := mapIndex(m, key); i >= 0 {
		return m.Content[i+1]
	}
	return nil
}

// mapIndex is the index in m.Content of key's key node, or -1.
func mapIndex(m *yaml.Node, key string) int {
	if m == nil || m.Kind != yaml.MappingNode {
		return -1
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}
