package tmpl

import (
	"encoding/json"
	"reflect"
)

// nodeCost is what one element of a list or map counts for besides its content: about
// what it costs in memory, and what a function that walks it spends on it.
const nodeCost = 16

// sizeOf is about what v takes when a function copies or prints it whole, stopping as soon
// as the count passes limit (so a value shared many times over — a list that holds itself
// twice per level — costs only the walk up to the limit). A node deeper in the value
// counts more, as an indented encoding of it does.
func sizeOf(v any, limit int) int {
	s := sizer{limit: limit}
	s.walk(v, 0)
	return s.n
}

type sizer struct {
	n, limit int
}

func (s *sizer) over() bool { return s.n > s.limit }

func (s *sizer) walk(v any, depth int) {
	if s.over() {
		return
	}
	s.n += nodeCost + depth
	switch t := v.(type) {
	case nil, bool, int, int64, float64, int32, uint32, uint64, uint:
	case string:
		s.n += len(t)
	case json.Number:
		s.n += len(t)
	case []byte:
		s.n += len(t)
	case []string:
		for _, e := range t {
			s.n += nodeCost + depth + 1 + len(e)
		}
	case []int:
		s.n += len(t) * 8
	case []any:
		s.walkList(t, depth)
	case map[string]any:
		s.walkMap(t, depth)
	case map[string]string:
		for k, e := range t {
			s.n += nodeCost + depth + 1 + len(k) + len(e)
		}
	default:
		s.walkReflect(reflect.ValueOf(v), depth)
	}
}

// walkList sizes the elements of a list at depth, stopping once past the limit.
func (s *sizer) walkList(t []any, depth int) {
	for _, e := range t {
		if s.over() {
			return
		}
		s.walk(e, depth+1)
	}
}

// walkMap sizes the keys and values of a map at depth, stopping once past the limit.
func (s *sizer) walkMap(t map[string]any, depth int) {
	for k, e := range t {
		if s.over() {
			return
		}
		s.n += len(k)
		s.walk(e, depth+1)
	}
}

// walkReflect sizes the other kinds a function may return or take ([][]any from chunk,
// typed slices and maps, pointers).
func (s *sizer) walkReflect(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		s.n += v.Len()
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len() && !s.over(); i++ {
			s.walk(v.Index(i).Interface(), depth+1)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() && !s.over() {
			s.walk(it.Key().Interface(), depth+1)
			s.walk(it.Value().Interface(), depth+1)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			s.walk(v.Elem().Interface(), depth+1)
		}
	case reflect.Struct:
		s.n += int(v.Type().Size())
	}
}
