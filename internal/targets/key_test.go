package targets

import (
	"math"
	"strings"
	"testing"
)

func TestCompileKeyRefusesWhatCannotBeAKey(t *testing.T) {
	cases := map[string]string{
		`name == "a"`:                     "gives bool, not a string or a number",
		`labels`:                          "not a string or a number",
		`[name]`:                          "not a string or a number",
		`labels.region +`:                 "unexpected token",
		`nope`:                            "unknown name nope",
		strings.Repeat("x", MaxExprLen+1): "over the limit of 4096",
	}
	for src, want := range cases {
		if _, err := NewCache(4).CompileKey(src); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.40s: got %v, want one line with %q", src, err, want)
		}
	}
	for _, src := range []string{`labels.region`, `int(labels.w)`, `float(values.x) * 2`, `len(name)`, `labels.a ?? name`, `name startsWith "a" ? 1 : 2`} {
		if _, err := NewCache(4).CompileKey(src); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
}

func TestAKeyIsAStringOrAFiniteNumber(t *testing.T) {
	s := Subject{Name: "c1", Labels: map[string]string{"region": "eu", "w": "7"}}
	cases := map[string]struct {
		want    Key
		problem string
	}{
		`labels.region`:              {want: Key{Str: "eu"}},
		`labels.missing`:             {want: Key{Str: ""}},
		`int(labels.w)`:              {want: Key{Num: 7, IsNum: true}},
		`float(labels.w) / 2`:        {want: Key{Num: 3.5, IsNum: true}},
		`labels.w == "7" ? nil : 1`:  {problem: "no value"},
		`labels.w == "7" ? true : 1`: {problem: "result is bool"},
		`int(labels.region)`:         {problem: `evaluate "int(labels.region)" for c1`},
		`float("NaN")`:               {problem: "not a string or a number"},
	}
	c := NewCache(8)
	for src, want := range cases {
		p, err := c.CompileKey(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		got, err := p.Eval(s)
		switch {
		case want.problem != "" && (err == nil || !strings.Contains(err.Error(), want.problem)):
			t.Errorf("%s: got %v, want %q", src, err, want.problem)
		case want.problem == "" && (err != nil || got != want.want):
			t.Errorf("%s: got %+v %v, want %+v", src, got, err, want.want)
		}
	}
}

func TestKeysCompareWithinTheirKind(t *testing.T) {
	if (Key{Num: 2, IsNum: true}).Compare(Key{Num: 10, IsNum: true}) >= 0 || (Key{Str: "2"}).Compare(Key{Str: "10"}) <= 0 {
		t.Fatal("numbers compare numerically, strings bytewise")
	}
	if (Key{Num: 1.5, IsNum: true}).String() != "1.5" || (Key{Str: "eu"}).String() != "eu" {
		t.Fatal("String")
	}
}

// TestKeyAndBooleanProgramsShareTheCacheApart: the same source compiled as a target's
// boolean and as a key gets each its own program.
func TestKeyAndBooleanProgramsShareTheCacheApart(t *testing.T) {
	c := NewCache(8)
	if _, err := c.Compile(`name == "a"`); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CompileKey(`name == "a"`); err == nil {
		t.Fatal("a boolean is no key, cached or not")
	}
	k, err := c.CompileKey(`name`)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := c.CompileKey(`name`); again != k {
		t.Fatal("a key is compiled once")
	}
	if _, err := c.Compile(`name`); err == nil {
		t.Fatal("a string is no boolean, cached or not")
	}
}

func TestOrderingErrorsNameTheField(t *testing.T) {
	for o, want := range map[Ordering]string{
		{Order: "name =="}:             "order: ",
		{Spread: "labels"}:             "spread: ",
		{Order: "name", Spread: "1 +"}: "spread: ",
	} {
		if err := o.Compile(nil); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%+v: %v", o, err)
		}
	}
	o := Ordering{Order: "name"}
	if o.Compiled() || o.Compile(nil) != nil || !o.Compiled() {
		t.Fatal("Compiled says whether the expressions set are compiled")
	}
}

// FuzzCompileKey: any source is compiled or refused, and a compiled key evaluates to a
// string, a finite number or an error — never a panic, never NaN.
func FuzzCompileKey(f *testing.F) {
	for _, s := range []string{`labels.region`, `int(labels.weight ?? "0")`, `-len(name)`, `values.tier + "-" + name`, `1 +`, `name == "a"`, `labels.w == "1" ? nil : 2`} {
		f.Add(s, "prod-1", "eu")
	}
	f.Fuzz(func(t *testing.T, src, name, region string) {
		p, err := NewCache(1).CompileKey(src)
		if err != nil {
			return
		}
		k, err := p.Eval(Subject{Name: name, Labels: map[string]string{"region": region, "weight": region}, Values: map[string]string{"tier": region}})
		if err == nil && k.IsNum && math.IsNaN(k.Num) {
			t.Fatalf("%q gave NaN", src)
		}
	})
}
