package tmpl

import (
	"math"
	"reflect"
)

// call is one function call's arguments, as a cost reads them; limit is what is left of
// the execution's bytes, where a size walk may stop.
type call struct {
	args  []reflect.Value
	limit int
}

// arg is argument i, or the invalid Value when the call has fewer.
func (c call) arg(i int) reflect.Value {
	if i >= len(c.args) {
		return reflect.Value{}
	}
	v := c.args[i]
	for v.IsValid() && v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	return v
}

// int is argument i as text/template would convert it for an int parameter, 0 if none.
func (c call) int(i int) int {
	n, _ := asInt(c.arg(i))
	return n
}

// str is argument i when it is a string.
func (c call) str(i int) string {
	if v := c.arg(i); v.IsValid() && v.Kind() == reflect.String {
		return v.String()
	}
	return ""
}

// len is the length of argument i when it is a list, a map or a string.
func (c call) len(i int) int {
	v := c.arg(i)
	if !v.IsValid() {
		return 0
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map, reflect.String:
		return v.Len()
	}
	return 0
}

// size is the size of arguments from..end, walked no further than the limit.
func (c call) size(from int) int {
	n := 0
	for i := from; i < len(c.args) && n <= c.limit; i++ {
		if v := c.args[i]; v.IsValid() && v.CanInterface() {
			n = add(n, sizeOf(v.Interface(), c.limit-n))
		}
	}
	return n
}

func asInt(v reflect.Value) (int, bool) {
	for v.IsValid() && v.Kind() == reflect.Interface && !v.IsNil() {
		v = v.Elem()
	}
	if !v.IsValid() {
		return 0, false
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return clampInt(float64(v.Int())), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return clampInt(float64(v.Uint())), true
	case reflect.Float32, reflect.Float64:
		return clampInt(v.Float()), true
	}
	return 0, false
}

// clampInt is f as an int, saturated (NaN as the largest: a cost that refuses).
func clampInt(f float64) int {
	switch {
	case math.IsNaN(f) || f >= math.MaxInt64/2:
		return math.MaxInt64 / 2
	case f <= math.MinInt64/2:
		return math.MinInt64 / 2
	}
	return int(f)
}

// add and mul saturate at MaxInt64/2, so no estimate wraps around to a small number.
func add(a, b int) int {
	if a < 0 || b < 0 {
		return -1
	}
	if a > math.MaxInt64/2-b {
		return math.MaxInt64 / 2
	}
	return a + b
}

func mul(a, b int) int {
	if a < 0 || b < 0 {
		return -1
	}
	if a != 0 && b > math.MaxInt64/2/a {
		return math.MaxInt64 / 2
	}
	return a * b
}

func abs(a int) int {
	if a < 0 {
		if a == math.MinInt64 {
			return math.MaxInt64 / 2
		}
		return -a
	}
	return a
}
