package spec

import (
	"encoding/json"
	"errors"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/targets"
)

// TestEveryHookKindIsWhole: each registered kind has a name a spec can write, a timeout
// limit with a fix, and a block that reads back from the plan and fills into its own type.
func TestEveryHookKindIsWhole(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range HookKinds() {
		name := k.Name()
		if !regexp.MustCompile(`^[a-z][a-z0-9]*$`).MatchString(name) || seen[name] {
			t.Errorf("kind %q: a name must be a lowercase word, used once", name)
		}
		seen[name] = true
		if limit, fix := k.MaxTimeout(); limit <= 0 || fix == "" {
			t.Errorf("kind %s: MaxTimeout = %s, %q: want a positive limit and its fix", name, limit, fix)
		}
		zero, err := k.Decode([]byte("{}"))
		if err != nil || zero == nil {
			t.Fatalf("kind %s: decode of an empty block: %v, %v", name, zero, err)
		}
		if filled := zero.Fill(func(s string) string { return s }); reflect.TypeOf(filled) != reflect.TypeOf(zero) {
			t.Errorf("kind %s: Fill returns a %T, not its own %T", name, filled, zero)
		}
		if got, ok := HookKindOf(name); !ok || got != k {
			t.Errorf("kind %s: HookKindOf does not find it", name)
		}
	}
}

// TestAClusterFieldInAnyStringOfAnyKindMakesItPerCluster sets each string value a kind's
// block can hold, one at a time, found by reflection (so a field a kind forgets to fill
// fails here): a cluster field makes the hook per-cluster, the phase's variables and
// secrets do not; Fill fills it and leaves the original alone; and the plan carries it.
func TestAClusterFieldInAnyStringOfAnyKindMakesItPerCluster(t *testing.T) {
	for _, k := range HookKinds() {
		zero, _ := k.Decode([]byte("{}"))
		typ := reflect.TypeOf(zero)
		places := stringPlaces(typ, k.Name(), 0)
		if len(places) == 0 {
			t.Errorf("kind %s: no string value found in a %s", k.Name(), typ)
		}
		for _, p := range places {
			for value, want := range map[string]bool{
				"{{name}}": true, "https://{{ server }}/x": true, "{{metadata.labels.env}}": true,
				"{{.appset.name}}": false, "{{ .phase.name }}": false, "{{.secrets.token.value}}": false, "plain": false,
			} {
				h := Hook{Name: "h", Type: k.Name(), Block: p.block(typ, value)}
				if got := h.PerCluster(); got != want {
					t.Errorf("%s = %q: PerCluster = %v, want %v", p.path, value, got, want)
				}
			}
			h := Hook{Name: "h", Type: k.Name(), Block: p.block(typ, "{{name}}")}
			filled := h.Block.Fill(func(s string) string { return strings.ReplaceAll(s, "{{name}}", "prod-1") })
			if b, _ := json.Marshal(filled); !strings.Contains(string(b), "prod-1") {
				t.Errorf("%s: Fill does not fill it: %s", p.path, b)
			}
			if !h.PerCluster() {
				t.Errorf("%s: Fill changed the hook it copied", p.path)
			}
			// The plan carries it: read back, the hook is the same, or (a block holding a
			// resource.Quantity, which reads back in another form of the same value) writes
			// the same plan again.
			var back Hook
			b, err := json.Marshal(h)
			if err == nil {
				err = json.Unmarshal(b, &back)
			}
			if err == nil && !reflect.DeepEqual(back, h) {
				again, _ := json.Marshal(back)
				err = errors.New("reads back as another hook")
				if string(again) == string(b) && strings.Contains(string(b), "{{name}}") {
					err = nil
				}
			}
			if err != nil {
				t.Errorf("%s: the plan does not carry it: %s, %v → %+v", p.path, b, err, back)
			}
		}
	}
}

// stringPlace is one string value a block type can hold, and how to make a block that
// holds value there and nothing else.
type stringPlace struct {
	path string
	set  func(v reflect.Value, value string)
}

func (p stringPlace) block(typ reflect.Type, value string) HookBlock {
	v := reflect.New(typ).Elem()
	p.set(v, value)
	return v.Interface().(HookBlock)
}

// stringPlaces walks a type: strings, and what pointers, structs (exported fields), slices,
// arrays, map values and interfaces that take a string lead to.
func stringPlaces(t reflect.Type, path string, depth int) []stringPlace {
	if depth > 10 { // a recursive type: deep enough
		return nil
	}
	if t.Kind() == reflect.Struct && t.Implements(reflect.TypeFor[json.Marshaler]()) {
		return nil // a value that writes itself (a job's resource.Quantity): its fields are not places
	}
	var out []stringPlace
	wrap := func(inner []stringPlace, step func(v reflect.Value, set func(reflect.Value))) {
		for _, in := range inner {
			out = append(out, stringPlace{in.path, func(v reflect.Value, s string) {
				step(v, func(e reflect.Value) { in.set(e, s) })
			}})
		}
	}
	switch t.Kind() {
	case reflect.String:
		out = append(out, stringPlace{path, func(v reflect.Value, s string) { v.SetString(s) }})
	case reflect.Interface:
		if reflect.TypeFor[string]().Implements(t) {
			out = append(out, stringPlace{path, func(v reflect.Value, s string) { v.Set(reflect.ValueOf(s)) }})
		}
	case reflect.Pointer:
		wrap(stringPlaces(t.Elem(), path, depth+1), func(v reflect.Value, set func(reflect.Value)) {
			v.Set(reflect.New(t.Elem()))
			set(v.Elem())
		})
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() {
				wrap(stringPlaces(f.Type, path+"."+f.Name, depth+1), func(v reflect.Value, set func(reflect.Value)) { set(v.Field(i)) })
			}
		}
	case reflect.Slice, reflect.Array:
		wrap(stringPlaces(t.Elem(), path+"[0]", depth+1), func(v reflect.Value, set func(reflect.Value)) {
			if t.Kind() == reflect.Slice {
				v.Set(reflect.MakeSlice(t, 1, 1))
			}
			set(v.Index(0))
		})
	case reflect.Map:
		wrap(stringPlaces(t.Elem(), path+"[key]", depth+1), func(v reflect.Value, set func(reflect.Value)) {
			e := reflect.New(t.Elem()).Elem()
			set(e)
			key := reflect.New(t.Key()).Elem()
			if key.Kind() == reflect.String {
				key.SetString("key")
			}
			v.Set(reflect.MakeMap(t))
			v.SetMapIndex(key, e)
		})
	}
	return out
}

// parseWithCheck parses a spec whose first phase has the check hook (YAML flow style).
func parseWithCheck(hook string) (*Spec, error) {
	src := strings.Replace(string(specWith("'true'", "1")), "        percentage: 10\n", "        percentage: 10\n        checks:\n        - "+hook+"\n", 1)
	return Parse("spec.yaml", []byte(src), targets.NewCache(8))
}
