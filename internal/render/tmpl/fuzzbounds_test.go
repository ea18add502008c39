package tmpl

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fragments are the pieces FuzzBounds builds templates from: loops, recursion and values
// that grow by doubling, the shapes of every bomb found so far.
var fragments = []string{
	`{{ range until 40 }}`, `{{ range $l }}`, `{{ range 300 }}`, `{{ end }}`,
	`{{ $s = print $s $s }}`, `{{ $l = concat $l $l }}`, `{{ $l = list $l $l }}`, `{{ $s = js $s }}`,
	`{{ toJson $l | len }}`, `{{ toPrettyJson $l | len }}`, `{{ repeat 300 $s | len }}`, `{{ indent 90 $s | len }}`,
	`{{ replace "" $s $s | len }}`, `{{ join $s $l | len }}`, `{{ uniq $l | len }}`, `{{ printf "%0*d" (len $s) 1 | len }}`,
	`{{ template "r" . }}`, `{{ $s }}`, `x`, `{{ regexReplaceAll "" $s "${0}${0}" | len }}`, `{{ sortAlpha $l | len }}`,
}

// FuzzBounds: a template assembled from fragments either is refused or ends within its
// bounds — output, time, and what it allocated about what its Bytes bound allows.
func FuzzBounds(f *testing.F) {
	f.Add([]byte{0, 4, 4, 4, 3, 8})
	f.Add([]byte{0, 1, 5, 5, 3, 3, 9})
	f.Add([]byte{2, 0, 16, 3, 3})
	f.Fuzz(func(t *testing.T, picks []byte) {
		if len(picks) > 64 {
			picks = picks[:64]
		}
		var b strings.Builder
		b.WriteString(`{{ define "r" }}{{ template "r" . }}{{ end }}{{ $s := "ab" }}{{ $l := list 1 2 }}`)
		open := 0
		for _, p := range picks {
			fr := fragments[int(p)%len(fragments)]
			if fr == `{{ end }}` {
				if open == 0 {
					continue
				}
				open--
			} else if strings.HasPrefix(fr, "{{ range") {
				open++
			}
			b.WriteString(fr)
		}
		b.WriteString(strings.Repeat(`{{ end }}`, open))
		bounds := Bounds{Steps: 2000, Bytes: 1 << 20, Output: 64 << 10, Time: 300 * time.Millisecond, Depth: 20}
		s, err := CompileString(b.String(), Options{GoTemplate: true, Bounds: bounds})
		if err != nil {
			return
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		var out bytes.Buffer
		err = s.s.render(context.Background(), bounds, &out, map[string]any{"name": "x"})
		wall := time.Since(start)
		runtime.ReadMemStats(&after)
		if out.Len() > bounds.Output {
			t.Fatalf("wrote %d bytes, bound %d: %s", out.Len(), bounds.Output, b.String())
		}
		if wall > bounds.Time+2*time.Second {
			t.Fatalf("ran %s, bound %s: %s", wall, bounds.Time, b.String())
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16*uint64(bounds.Bytes)+(8<<20) {
			t.Fatalf("allocated %d bytes, bound %d (err %v): %s", alloc, bounds.Bytes, err, b.String())
		}
	})
}
