package state

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// sharedOnPurpose are the paths whose memory Clone shares by design (see Clone).
var sharedOnPurpose = map[string]bool{"Revisions[]": true}

// TestCloneCopiesEveryField fills every field of a State, recursively, with non-zero values
// and checks that the clone is deep-equal and shares no mutable memory with the original:
// a field Clone forgets (a new slice, map or pointer copied shallowly) fails here.
func TestCloneCopiesEveryField(t *testing.T) {
	var orig, same State
	fill(t, reflect.ValueOf(&orig).Elem(), "", 1)
	fill(t, reflect.ValueOf(&same).Elem(), "", 1)
	c := orig.Clone()
	if !reflect.DeepEqual(&orig, c) {
		t.Fatalf("the clone differs:\n%+v\n%+v", orig, *c)
	}
	disjoint(t, reflect.ValueOf(orig), reflect.ValueOf(*c), "")
	fill(t, reflect.ValueOf(c).Elem(), "", 2) // writes into the clone's slices, maps and pointees
	if !reflect.DeepEqual(orig, same) {
		t.Fatal("changing the clone changed the original")
	}
	if (*State)(nil).Clone() != nil {
		t.Fatal("a nil state clones to nil")
	}
}

var timeType = reflect.TypeFor[time.Time]()

// fill sets every field under v to a non-zero value derived from seed, in place: existing
// slice elements, map entries and pointees are overwritten, not replaced, so filling a clone
// reaches any memory it shares with the original.
func fill(t *testing.T, v reflect.Value, path string, seed int) {
	t.Helper()
	if sharedOnPurpose[strings.TrimPrefix(path, ".")] {
		v.SetZero() // never written through, as the engine treats it: replaced
	}
	switch {
	case v.Type() == timeType:
		v.Set(reflect.ValueOf(time.Unix(int64(1000*seed+len(path)), 0).UTC()))
		return
	case v.Kind() == reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() {
				t.Fatalf("%s.%s is unexported: fill cannot set it (extend this test)", path, f.Name)
			}
			fill(t, v.Field(i), path+"."+f.Name, seed)
		}
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("%s#%d", strings.TrimPrefix(path, "."), seed))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(seed*7 + len(path)))
	case reflect.Uint8:
		v.SetUint(uint64(seed + len(path)))
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(t, v.Elem(), path+"*", seed)
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		}
		for i := range v.Len() {
			fill(t, v.Index(i), path+"[]", seed+i)
		}
	case reflect.Map:
		if v.IsNil() {
			v.Set(reflect.MakeMap(v.Type()))
		}
		for i := range 2 {
			k := reflect.New(v.Type().Key()).Elem()
			fill(t, k, path+"{}", i)
			e := reflect.New(v.Type().Elem()).Elem()
			if old := v.MapIndex(k); old.IsValid() {
				e.Set(old) // a value that holds references keeps them: fill writes through
			}
			fill(t, e, path+"[]", seed+i)
			v.SetMapIndex(k, e)
		}
	default:
		t.Fatalf("%s: fill cannot set a %s (extend this test)", path, v.Kind())
	}
}

// disjoint fails when a and b (deep-equal) share a slice's array, a map or a pointee
// anywhere under path, except where sharedOnPurpose says so.
func disjoint(t *testing.T, a, b reflect.Value, path string) {
	t.Helper()
	if sharedOnPurpose[strings.TrimPrefix(path, ".")] || a.Type() == timeType {
		return
	}
	switch a.Kind() {
	case reflect.Struct:
		for i := range a.NumField() {
			disjoint(t, a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name)
		}
	case reflect.Pointer:
		if !a.IsNil() && a.Pointer() == b.Pointer() {
			t.Errorf("%s: the clone shares the pointee", path)
		} else if !a.IsNil() {
			disjoint(t, a.Elem(), b.Elem(), path+"*")
		}
	case reflect.Slice:
		if a.Len() > 0 && a.Pointer() == b.Pointer() {
			t.Errorf("%s: the clone shares the slice's array", path)
		}
		for i := range a.Len() {
			disjoint(t, a.Index(i), b.Index(i), path+"[]")
		}
	case reflect.Map:
		if !a.IsNil() && a.Pointer() == b.Pointer() {
			t.Errorf("%s: the clone shares the map", path)
		}
		for _, k := range a.MapKeys() {
			disjoint(t, a.MapIndex(k), b.MapIndex(k), path+"[]")
		}
	}
}
