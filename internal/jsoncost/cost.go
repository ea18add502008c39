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

// Cost is what decoding b may allocate, at most: its bytes, and each object, array and
// scalar (a string, number, true, false or null; an object's keys included) by its weight.
// It does not validate b: the decoder does.
func Cost(b []byte) int64 {
	n := count(b)
	return int64(len(b)) + n.objectsInArrays*PerObjectInArray + n.objects*PerObject + n.arrays*PerArray + n.scalars*PerScalar
}

// maxDepth is the nesting encoding/json refuses past; deeper, count keeps no kinds and
// weighs every object as one in an array.
const maxDepth = 10000

// count counts b's items in one pass, keeping the kind of each open container (true: an
// array) to tell an object in an array from one elsewhere.
func count(b []byte) counts {
	var n counts
	var open []bool
	depth := 0
	inLiteral := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch class[c] {
		case quote:
			n.scalars++
			i = stringEnd(b, i+1)
		case openObject:
			if depth > len(open) || (depth > 0 && open[depth-1]) {
				n.objectsInArrays++
			} else {
				n.objects++
			}
			open = push(open, depth, false)
			depth++
		case openArray:
			n.arrays++
			open = push(open, depth, true)
			depth++
		case closing:
			depth = max(depth-1, 0)
			open = open[:min(depth, len(open))]
		case delimiter:
		default: // a number, true, false or null goes on to the next delimiter
			if !inLiteral {
				n.scalars++
			}
			inLiteral = true
			continue
		}
		inLiteral = false
	}
	return n
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
// bracket, comma and colon, also those in strings, each object weighed as one in an array;
// in valid JSON each scalar follows its own `{`, `[`, `,` or `:`, or is the whole document.
// (An invalid document fails the decoder's syntax scan before it allocates a value.)
func upperBound(b []byte) int64 {
	braces, brackets := int64(bytes.Count(b, []byte("{"))), int64(bytes.Count(b, []byte("[")))
	scalars := int64(bytes.Count(b, []byte(",")) + bytes.Count(b, []byte(":")) + 1)
	return int64(len(b)) + braces*PerObjectInArray + brackets*PerArray + (scalars+braces+brackets)*PerScalar
}

// Check refuses b when its Cost is over limit. Most documents are far within it: their
// upper bound, counted fast, says so without the scan.
func Check(b []byte, limit int64) error {
	if upperBound(b) <= limit {
		return nil
	}
	if c := Cost(b); c > limit {
		return fmt.Errorf("%d bytes that would take up to %d MiB to decode, over the limit of %d MiB (too many objects or values)", len(b), c>>20, limit>>20)
	}
	return nil
}
