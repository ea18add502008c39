package targets

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"strconv"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
)

// KeyProgram is a compiled expression that gives a cluster a key (a phase's order or
// spread): a string or a number, over the same names as a target's expr.
type KeyProgram struct {
	src string
	p   *vm.Program
}

// Key is the value a KeyProgram gave one cluster.
type Key struct {
	Str   string
	Num   float64
	IsNum bool
}

// keyPrefix keeps key programs apart from boolean ones in the cache.
const keyPrefix = "key\x00"

// CompileKey returns the compiled key program for src, from the cache when it is there (a
// nil Cache compiles every time). An expression whose type is known and is neither a string
// nor a number is refused here, at load.
func (c *Cache) CompileKey(src string) (*KeyProgram, error) {
	if len(src) > MaxExprLen {
		return nil, fmt.Errorf("expression is %d bytes, over the limit of %d", len(src), MaxExprLen)
	}
	if c != nil {
		if p, ok := c.lru.Get(keyPrefix + src); ok && p.key != nil {
			return p.key, nil
		}
	}
	if err := CheckBounded(src); err != nil {
		return nil, err
	}
	p, err := expr.Compile(src, pure()...)
	if err != nil {
		return nil, fmt.Errorf("%s", oneLine(err.Error()))
	}
	if t := p.Node().Type(); t != nil && !keyKind(t.Kind()) {
		return nil, fmt.Errorf("expression gives %s, not a string or a number", t)
	}
	kp := &KeyProgram{src: src, p: p}
	if c != nil {
		c.lru.Add(keyPrefix+src, &Program{src: src, key: kp})
	}
	return kp, nil
}

// keyKind reports whether a value of kind k can be a key (or may be one: interface).
func keyKind(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Interface,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

// Source is the expression as written.
func (k *KeyProgram) Source() string { return k.src }

// Eval gives s its key; a result that is neither a string nor a (finite) number (nil, a
// bool, NaN) is an error naming the cluster. A label s lacks reads as "", as in a target's
// expr.
func (k *KeyProgram) Eval(s Subject) (Key, error) {
	out, err := Run(k.p, subjectEnv(s))
	if err != nil {
		return Key{}, fmt.Errorf("evaluate %q for %s: %s", k.src, s.Name, oneLine(err.Error()))
	}
	v := reflect.ValueOf(out)
	switch {
	case out == nil:
		return Key{}, fmt.Errorf("evaluate %q for %s: no value: make it give a string or a number for every cluster", k.src, s.Name)
	case v.Kind() == reflect.String:
		return Key{Str: v.String()}, nil
	case v.CanInt():
		return Key{Num: float64(v.Int()), IsNum: true}, nil
	case v.CanUint():
		return Key{Num: float64(v.Uint()), IsNum: true}, nil
	case v.CanFloat() && !math.IsNaN(v.Float()):
		return Key{Num: v.Float(), IsNum: true}, nil
	}
	return Key{}, fmt.Errorf("evaluate %q for %s: result is %T (%v), not a string or a number", k.src, s.Name, out, out)
}

// Compare orders two keys of the same kind: numbers numerically, strings bytewise.
func (a Key) Compare(b Key) int {
	if a.IsNum {
		return cmp.Compare(a.Num, b.Num)
	}
	return cmp.Compare(a.Str, b.Str)
}

// String is the key as it is shown and grouped by.
func (a Key) String() string {
	if a.IsNum {
		return strconv.FormatFloat(a.Num, 'g', -1, 64)
	}
	return a.Str
}
