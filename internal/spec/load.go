package spec

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// Load finds and parses the one ApplicationSet among the top-level .yaml, .yml and .json
// files of dir. Other files and documents are ignored.
func Load(dir string, exprs *targets.Cache) (*Spec, error) {
	return load(dir, exprs, nil)
}

// LoadChecked is Load that also reports every hook over the installation's limits l, as
// ParseChecked does.
func LoadChecked(dir string, exprs *targets.Cache, l Limits) (*Spec, error) {
	return load(dir, exprs, &l)
}

func load(dir string, exprs *targets.Cache, l *Limits) (*Spec, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read spec dir: %w", err)
	}
	var found *Spec
	var where []string
	var bad Errors // every file's problems: one bad ApplicationSet does not hide another's
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if !e.Type().IsRegular() || !slices.Contains([]string{".yaml", ".yml", ".json"}, ext) {
			continue
		}
		s, ok, err := loadFile(dir, e.Name(), exprs, l)
		var es Errors
		switch {
		case errors.As(err, &es):
			bad = append(bad, es...)
		case err != nil:
			return nil, err
		}
		if ok {
			found = s
			where = append(where, e.Name())
		}
	}
	if len(where) > 1 {
		bad = append(bad, &Error{File: dir, Line: 0, Path: "(dir)", Msg: "several ApplicationSets: " + strings.Join(where, ", "), Fix: "keep one ApplicationSet per plugin directory"})
	}
	if len(bad) > 0 {
		return nil, bad
	}
	switch len(where) {
	case 0:
		return nil, Errors{{File: dir, Line: 0, Path: "(dir)", Msg: noSpec, Fix: "add a YAML file with kind: ApplicationSet; a rollout whose spec was removed keeps its children until a person confirms with confirm-remove-rollout, or its parent is deleted with the resources finalizer"}}
	default:
		return found, nil
	}
}

// loadFile reads and parses one file of the directory; ok says it holds an ApplicationSet.
func loadFile(dir, name string, exprs *targets.Cache, l *Limits) (*Spec, bool, error) {
	data, err := readBounded(filepath.Join(dir, name))
	if err != nil {
		return nil, true, err
	}
	return parseFile(name, data, exprs, l)
}

// noSpec is Load's problem for a directory without an ApplicationSet.
const noSpec = "no ApplicationSet found"

// IsMissing reports whether err is Load's "no ApplicationSet found": the spec is not (or no
// longer) in the directory.
func IsMissing(err error) bool {
	var es Errors
	return errors.As(err, &es) && len(es) == 1 && es[0].Msg == noSpec
}

func readBounded(file string) ([]byte, error) {
	st, err := os.Stat(file)
	if err != nil {
		return nil, fmt.Errorf("read spec: %w", err)
	}
	if st.Size() > MaxFileSize {
		return nil, Errors{{File: filepath.Base(file), Line: 1, Path: "(file)", Msg: fmt.Sprintf("is %d bytes, over the limit of %d", st.Size(), MaxFileSize), Fix: "keep the spec small; move data into cluster labels"}}
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read spec: %w", err)
	}
	return b, nil
}
