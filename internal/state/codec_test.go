package state

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// refDecodeJSON is DecodeJSON as it was before it read a valid document once: the schema
// read first from the whole document, then a strict decode. The faster one must accept
// exactly what it accepted and refuse the rest with the same error.
func refDecodeJSON(raw []byte) (*State, error) {
	var head struct {
		Schema int `json:"schema"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("decode state: corrupt json: %w", err)
	}
	if head.Schema != Schema {
		return nil, fmt.Errorf("decode state: schema %d, this cmp-phase reads %d (fix: upgrade cmp-phase)", head.Schema, Schema)
	}
	var s State
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(&s); err != nil {
		return nil, fmt.Errorf("decode state: %w", err)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("decode state: %w", err)
	}
	return &s, nil
}

// refDecode is Decode as it was: the inflated document read into a growing buffer.
func refDecode(b []byte) (*State, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	raw, err := io.ReadAll(io.LimitReader(zr, MaxInflated+1))
	if err != nil {
		return nil, err
	}
	return refDecodeJSON(raw)
}

func codecCases(t testing.TB) map[string]string {
	big, err := json.Marshal(withHistory(bigState(300)))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"a valid state":                      string(big),
		"whitespace around it":               " \n\t" + string(big) + "\r\n ",
		"trailing garbage":                   string(big) + " x",
		"two documents":                      `{"schema":1,"generation":1} {"schema":1,"generation":2}`,
		"a minimal state":                    `{"schema":1,"generation":1}`,
		"an empty input":                     ``,
		"only whitespace":                    "  \n",
		"null":                               `null`,
		"an array":                           `[]`,
		"an empty object":                    `{}`,
		"a truncated document":               `{"schema":1,"generation":1,"children":["a"`,
		"a future schema":                    `{"schema":2,"generation":1}`,
		"a future schema with a new field":   `{"schema":2,"generation":1,"shards":[]}`,
		"an unknown field":                   `{"schema":1,"generation":1,"shards":[]}`,
		"a schema of the wrong type":         `{"schema":"1","generation":1}`,
		"a generation of the wrong type":     `{"schema":1,"generation":"1"}`,
		"the schema twice, the last wins":    `{"schema":2,"schema":1,"generation":1}`,
		"the schema twice, the last refuses": `{"schema":1,"schema":2,"generation":1}`,
		"a zero generation":                  `{"schema":1,"generation":0}`,
		"unsorted children":                  `{"schema":1,"generation":1,"children":["b","a"]}`,
		"an unknown field deep inside":       `{"schema":1,"generation":1,"rollout":{"revision":"r","status":"Progressing","phase":0,"phases":[{"name":"a","x":1}],"startedAt":"2026-01-01T00:00:00Z"}}`,
		"invalid utf-8 in a string":          "{\"schema\":1,\"generation\":1,\"deployed\":\"\xff\"}",
		"a string that does not end":         `{"schema":1,"generation":1,"deployed":"abc}`,
	}
}

// TestDecodeJSONIsTheReference: the same states, the same errors, for valid documents and
// every way of not being one.
func TestDecodeJSONIsTheReference(t *testing.T) {
	for name, in := range codecCases(t) {
		t.Run(name, func(t *testing.T) {
			sameAsReference(t, []byte(in))
		})
	}
}

func sameAsReference(t *testing.T, raw []byte) {
	t.Helper()
	got, err := DecodeJSON(raw)
	want, wantErr := refDecodeJSON(raw)
	if fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Fatalf("error %v, want %v", err, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal("a state unlike the reference's")
	}
}

// FuzzDecodeJSONIsTheReference: whatever the input, DecodeJSON answers as the reference.
func FuzzDecodeJSONIsTheReference(f *testing.F) {
	for _, in := range codecCases(f) {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		sameAsReference(t, raw)
	})
}

// TestDecodeSizesFromTheTrailer: a state whose gzip trailer lies about its size decodes
// the same (the size is a hint), and a short input is refused, never a panic.
func TestDecodeSizesFromTheTrailer(t *testing.T) {
	good, err := Encode(bigState(100))
	if err != nil {
		t.Fatal(err)
	}
	want, err := Decode(good)
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []uint32{0, 1, 1 << 31, ^uint32(0)} {
		lying := bytes.Clone(good)
		lying[len(lying)-4], lying[len(lying)-3], lying[len(lying)-2], lying[len(lying)-1] = byte(size), byte(size>>8), byte(size>>16), byte(size>>24)
		got, err := Decode(lying)
		switch {
		case err != nil && !strings.Contains(err.Error(), "corrupt gzip"):
			t.Errorf("size %d: %v", size, err)
		case err == nil && !reflect.DeepEqual(got, want):
			t.Errorf("size %d: another state", size)
		}
	}
	for _, short := range [][]byte{{0x1f}, {0x1f, 0x8b, 8}} {
		if _, err := Decode(short); err == nil {
			t.Errorf("%v decoded", short)
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, n := range []int{10000} {
		enc, err := Encode(withHistory(bigState(n)))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(enc); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("clusters=%d/before", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := refDecode(enc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
