package tmpl

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// bombs are templates that would pin or kill a process with no bounds (issue 47's D1 and
// the doubling tricks around it); each must be refused at compile or stop at its bounds.
var bombs = map[string]string{
	"repeat":          `{{ repeat 200000000 "x" }}`,
	"nested until":    `{{ range until 100000 }}{{ range until 10000 }}xxxxxxxxxxxxxxxxxxxx{{end}}{{end}}`,
	"silent nest":     `{{ range until 50000 }}{{ range until 50000 }}{{end}}{{end}}`,
	"hoisted nest":    `{{ $l := until 50000 }}{{ range $l }}{{ range $l }}{{end}}{{end}}`,
	"range int":       `{{ range 1000000000 }}{{end}}`,
	"param count":     `{{ repeat (len .name | mul 100000000 | int) "x" }}`,
	"doubling string": `{{ $s := "xxxxxxxx" }}{{ range until 64 }}{{ $s = print $s $s }}{{end}}{{ len $s }}`,
	"doubling list":   `{{ $l := list 1 }}{{ range until 64 }}{{ $l = concat $l $l }}{{end}}{{ len $l }}`,
	"nested json":     `{{ $l := list 1 }}{{ range until 64 }}{{ $l = list $l $l }}{{end}}{{ toJson $l | len }}`,
	"recursion":       `{{ define "a" }}{{ template "a" . }}{{ template "a" . }}{{ end }}{{ template "a" . }}`,
	"printf width":    `{{ printf "%0*d" 1000000000 1 }}`,
	"printf literal":  `{{ printf "%01000000000d" 1 }}`,
	"replace empty":   `{{ $s := repeat 4000 "x" }}{{ replace "" $s $s }}`,
	"regex refs":      `{{ $s := repeat 3000 "x" }}{{ regexReplaceAll "" $s "${0}${0}${0}" }}`,
	"indent":          `{{ indent 1000000000 "x\nx" }}`,
	"indent param":    `{{ indent (mul 100000000 (len .name) | int) "x\nx" }}`,
	"join sep":        `{{ join (repeat 100000 "x") (until 10000) }}`,
	"uniq":            `{{ uniq (until 100000) | len }}`,
	"chunk zero":      `{{ chunk 0 (list 1 2 3) }}`,
	"yaml aliases":    `{{ fromYaml "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: [*b,*b,*b,*b,*b,*b,*b,*b,*b]" | toJson }}`,
	"seq":             `{{ seq 1000000000 }}`,
	"deep pretty":     `{{ $l := list 1 }}{{ range until 20000 }}{{ $l = list $l }}{{end}}{{ toPrettyJson $l | len }}`,
	"untilStep":       `{{ range untilStep 0 1000000000 1 }}{{end}}`,
	"now":             `{{ now }}`,
	"random":          `{{ randAlpha 10 }}`,
	"derivePassword":  `{{ derivePassword 1 "long" "password" "user" "example.com" }}`,
	"wrapWith":        `{{ wrapWith 1 (repeat 10000 "y") (repeat 10000 "x") }}`,
	"js doubling":     `{{ $s := "<<<<<<<<" }}{{ range until 64 }}{{ $s = js (print $s $s) }}{{end}}{{ len $s }}`,
	"deep recursion":  `{{ define "a" }}{{ template "a" . }}{{ end }}{{ template "a" . }}`,
}

// TestBombsStopAtTheirBounds: every bomb is refused when compiled, or its execution ends
// with ErrBound within the time bound — never runs on.
func TestBombsStopAtTheirBounds(t *testing.T) {
	for name, src := range bombs {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			err := runBomb(context.Background(), src)
			if err == nil {
				t.Fatalf("%s rendered", src)
			}
			if !errors.Is(err, ErrBound) && !errors.Is(err, ErrRefused) && !errors.Is(err, errAliases) {
				t.Fatalf("%s: %v, want a bound or a refusal", src, err)
			}
			if d := time.Since(start); d > DefaultBounds.Time+time.Second {
				t.Fatalf("%s took %s", src, d)
			}
			t.Logf("%s", err)
		})
	}
}

func runBomb(ctx context.Context, src string) error {
	s, err := CompileString(src, Options{GoTemplate: true})
	if err != nil {
		return err
	}
	_, err = s.Render(ctx, map[string]any{"name": "dev-1"})
	return err
}

// TestBoundsKeepOrdinaryTemplates: the bounds change nothing for what ApplicationSet
// templates do (the differential test against Argo CD's renderer holds the rest).
func TestBoundsKeepOrdinaryTemplates(t *testing.T) {
	params := map[string]any{"name": "dev-1", "values": map[string]any{"list": []any{"a", "b"}, "cfg": map[string]any{"k": "v"}}}
	for src, want := range map[string]string{
		`{{ .name | upper }}`:                                        "DEV-1",
		`{{ range .values.list }}{{ . }},{{ end }}`:                  "a,b,",
		`{{ toYaml .values.cfg | nindent 2 }}`:                       "\n  k: v",
		`{{ repeat 3 "ab" }}`:                                        "ababab",
		`{{ printf "%05d" 42 }}`:                                     "00042",
		`{{ range until 3 }}{{ . }}{{ end }}`:                        "012",
		`{{ replace "-" "_" .name }}`:                                "dev_1",
		`{{ define "x" }}[{{ . }}]{{ end }}{{ template "x" .name }}`: "[dev-1]",
	} {
		s, err := CompileString(src, Options{GoTemplate: true})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		got, err := s.Render(context.Background(), params)
		if err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", src, got, err, want)
		}
	}
}

// TestACancelledRenderStops: a loop stops at the caller's cancellation, not its own bound.
func TestACancelledRenderStops(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	huge := Bounds{Steps: 1 << 40, Bytes: 1 << 40, Output: 1 << 40, Time: time.Hour, Depth: 100}
	s, err := CompileString(`{{ range until 90000 }}{{ range until 90000 }}{{ end }}{{ end }}`, Options{GoTemplate: true, Bounds: huge})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Render(ctx, map[string]any{"name": "x"})
	if !errors.Is(err, ErrBound) || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("err = %v, want the cancellation", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("took %s after a 50ms deadline", d)
	}
}

// TestEveryFunctionHasACost: every function a template may name is refused, costed by
// its arguments (costs) or linear in them — so a function a new sprig adds is placed
// before it runs unbounded.
func TestEveryFunctionHasACost(t *testing.T) {
	placed := map[string]int{}
	for n := range refused {
		placed[n]++
	}
	for n := range costs {
		placed[n]++
	}
	for _, n := range linear {
		placed[n]++
	}
	for n := range funcSet {
		if placed[n] != 1 {
			t.Errorf("function %s is placed %d times in refused, costs and linear, want once", n, placed[n])
		}
	}
	for n := range placed {
		if _, ok := funcSet[n]; !ok {
			t.Errorf("%s is placed but no template can name it", n)
		}
	}
}
