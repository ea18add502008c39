package jsoncost

import (
	"bytes"
	"fmt"
)

// What decoding allocates at most, per item of a document, measured on the worst shapes
// of the state, the plan and the inventory (TestCostBoundsWhatDecodingAllocates): an empty
// object in a list of the state's largest struct (256 bytes) costs ≈ 1.3 KB with the list's
// growth; an object elsewhere (a map's value, a field) far less; a scalar the decoder
// cannot store costs ≈ 170 bytes of error context.
const (
	// PerByte: the decoder's buffer grows to twice the document (every smaller buffer
	// before it allocated too), and a raw value (json.RawMessage) is copied once more.
	PerByte          = 6
	PerObjectInArray = 2048
	PerObject        = 768
	PerArray         = 64
	PerScalar        = 192
)

// Limit is what decoding one ConfigMap's document may allocate (the state, a plan's keys;
// the inventory has its own, inventory.MaxDecodeCost): 128 MiB, a quarter of the sidecar's
// memory; a 10,000-cluster state with its history costs 73 MiB.
const Limit = 128 << 20

// counts are the items of a document Cost weighs.
type counts struct {
	objectsInArrays, objects, arrays, scalars int64
}

// Cost is what decoding b may allocate, at most: its bytes (PerByte), and each object, array and
// scalar (a string, number, true, false or null; an object's keys included) by its weight.
// It does not validate b: the decoder does.
func Cost(b []byte) int64 { return CostRaw(b, "", false) }

// CostRaw is Cost for a document whose decoder keeps some values raw (json.RawMessage:
// copied, not parsed): with raw, the values of the object under the top-level key under
// ("" the document itself) weigh one scalar each and their bytes.
func CostRaw(b []byte, under string, raw bool) int64 {
	sc := scan{under: under, rawAt: -1, skipUntil: -1}
	if raw && under == "" {
		sc.rawAt = 1
	}
	n := sc.count(b)
	return int64(len(b))*PerByte + n.objectsInArrays*PerObjectInArray + n.objects*PerObject + n.arrays*PerArray + n.scalars*PerScalar
}

// maxDepth is the nesting encoding/json refuses past; deeper, count keeps no kinds and
// weighs every object as one in an array.
const maxDepth = 10000

// scan is one pass's state: the kind of each open container (true: an array) to tell an
// object in an array from one elsewhere, and the raw values it does not look into.
type scan struct {
	n         counts
	open      []bool
	depth     int
	under     string // the top-level key whose object's values are raw ("": none, or rawAt set)
	lastKey   string // the last string at depth 1: the key of the value that follows
	rawAt     int    // the depth of raw values, -1 when none (yet)
	skipUntil int    // inside a raw container: the depth it was opened at, else -1
}

// count counts b's items.
func (sc *scan) count(b []byte) counts {
	inLiteral := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch class[c] {
		case quote:
			end := stringEnd(b, i+1)
			if sc.depth == 1 && sc.under != "" {
				sc.lastKey = string(b[i+1 : end])
			}
			if sc.skipUntil < 0 {
				sc.n.scalars++
			}
			i = end
		case openObject, openArray:
			sc.opened(c == '[')
		case closing:
			sc.closed()
		case delimiter:
		default: // a number, true, false or null goes on to the next delimiter
			if !inLiteral && sc.skipUntil < 0 {
				sc.n.scalars++
			}
			inLiteral = true
			continue
		}
		inLiteral = false
	}
	return sc.n
}

// opened counts a container opened at the current depth, unless inside a raw value; one
// that is a raw value counts as one scalar, and what it holds as nothing.
func (sc *scan) opened(array bool) {
	switch {
	case sc.skipUntil >= 0:
	case sc.depth == sc.rawAt:
		sc.n.scalars++
		sc.skipUntil = sc.depth
	case array:
		sc.n.arrays++
	case sc.depth > len(sc.open) || (sc.depth > 0 && sc.open[sc.depth-1]):
		sc.n.objectsInArrays++
	default:
		sc.n.objects++
	}
	if !array && sc.depth == 1 && sc.under != "" && sc.lastKey == sc.under && sc.skipUntil < 0 {
		sc.rawAt = 2
	}
	sc.open = push(sc.open, sc.depth, array)
	sc.depth++
}

// closed ends the innermost container.
func (sc *scan) closed() {
	sc.depth = max(sc.depth-1, 0)
	sc.open = sc.open[:min(sc.depth, len(sc.open))]
	if sc.skipUntil == sc.depth {
		sc.skipUntil = -1
	}
	if sc.depth == 1 && sc.rawAt == 2 {
		sc.rawAt = -1 // the raw object ended
	}
}

// push records the kind of a container opened at depth, up to maxDepth.
func push(open []bool, depth int, array bool) []bool {
	if depth < maxDepth && depth == len(open) {
		return append(open, array)
	}
	return open
}

// stringEnd is the index of the quote that closes the string whose content starts at i
// (len(b) when none does); a backslash escapes the byte after it.
func stringEnd(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch b[i] {
		case '"':
			return i
		case '\\':
			i++
		}
	}
	return len(b)
}

// Byte classes of the scan.
const (
	other = iota
	quote
	openObject
	openArray
	closing
	delimiter
)

var class = func() (t [256]uint8) {
	t['"'], t['{'], t['['], t['}'], t[']'] = quote, openObject, openArray, closing, closing
	for _, c := range []byte(",: \t\n\r") {
		t[c] = delimiter
	}
	return t
}()

// upperBound is at least Cost(b) for a valid document b, counted fast: every brace,
// bracket, comma and colon, also those in strings, each object weighed as one in an array
// but one right after a colon (a value in an object; with white space between, weighed as
// in an array); in valid JSON each scalar follows its own `{`, `[`, `,` or `:`, or is the
// whole document.
// (An invalid document fails the decoder's syntax scan before it allocates a value.)
func upperBound(b []byte) int64 {
	braces, brackets := int64(bytes.Count(b, []byte("{"))), int64(bytes.Count(b, []byte("[")))
	values := afterColon(b, '{') // right after a colon: an object's value, not an array's
	scalars := int64(bytes.Count(b, []byte(",")) + bytes.Count(b, []byte(":")) + 1)
	return int64(len(b))*PerByte + (braces-values)*PerObjectInArray + values*PerObject + brackets*PerArray + (scalars+braces+brackets)*PerScalar
}

// afterColon counts the bytes c right after a colon, visiting only the c's.
func afterColon(b []byte, c byte) int64 {
	var n int64
	for i := 0; ; i++ {
		j := bytes.IndexByte(b[i:], c)
		if j < 0 {
			return n
		}
		if i += j; i > 0 && b[i-1] == ':' {
			n++
		}
	}
}

// Check refuses b when its Cost is over limit. Most documents are far within it: their
// upper bound, counted fast, says so without the scan.
func Check(b []byte, limit int64) error { return check(b, limit, Cost) }

// CheckRaw is Check with CostRaw(b, under, true): for a document whose decoder keeps the
// values of the object under the top-level key under ("" the document's own) raw.
func CheckRaw(b []byte, under string, limit int64) error {
	return check(b, limit, func(b []byte) int64 { return CostRaw(b, under, true) })
}

func check(b []byte, limit int64, cost func([]byte) int64) error {
	if upperBound(b) <= limit {
		return nil
	}
	if c := cost(b); c > limit {
		return fmt.Errorf("%d bytes that would take up to %d MiB to decode, over the limit of %d MiB (too many objects or values)", len(b), c>>20, limit>>20)
	}
	return nil
}
