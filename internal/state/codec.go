package state

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/jsoncost"
)

// Limits of the state ConfigMap (its keys are contract.StateKey and contract.GenerationKey).
const (
	// MaxConfigMapBytes is the API server's limit on a ConfigMap.
	MaxConfigMapBytes = 1 << 20
	// Budget is what the state may use: 640 KiB, 62.5% of the limit, keeping the rest as
	// headroom (a 10,000-cluster rollout with its history uses less than half of it).
	Budget = 640 << 10
	// MaxInflated bounds the decompressed document: 8× the ConfigMap's limit (a
	// 10,000-cluster state with its history inflates to 4.9 MiB). A state is written only
	// within it, and read only within it: no gzip bomb (58 KB inflated to 57 MB before).
	MaxInflated = 8 * MaxConfigMapBytes
	// MaxDecodeCost bounds what decoding the document may allocate (jsoncost.CostRaw: its
	// objects, arrays and values weighed, the revisions' bodies by their bytes: they stay
	// json.RawMessage, and the render weighs each before it decodes one), checked before
	// it is decoded: 57 MB of state took 1.17 GB to decode before, 10 MiB of `{},` 4.3 GB.
	// A 10,000-cluster state with its history costs 73 MiB (and allocates 29).
	MaxDecodeCost = jsoncost.Limit
)

// revisionsKey is the state document's key of the revisions' bodies (json.RawMessage).
const revisionsKey = "revisions"

// rebuild is the fix of a state document no read can trust.
const rebuild = "fix: delete the state ConfigMap; the agent rebuilds the state from the live children"

// ErrNoState means the ConfigMap exists but holds no state document.
var ErrNoState = errors.New("no state document")

// Encode serialises the state; it fails when the result would exceed the budget.
func Encode(s *State) ([]byte, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode state: %w", err)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if _, err := zw.Write(raw); err != nil {
		return nil, fmt.Errorf("compress state: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compress state: %w", err)
	}
	if len(raw) > MaxInflated {
		return nil, fmt.Errorf("state is %d bytes of JSON, over the limit of %d (8 MiB): garbage-collect revisions or split the fleet", len(raw), MaxInflated)
	}
	if err := jsoncost.CheckRaw(raw, revisionsKey, MaxDecodeCost); err != nil {
		return nil, fmt.Errorf("state is %w: garbage-collect revisions or split the fleet", err)
	}
	if buf.Len() > Budget {
		return nil, fmt.Errorf("state is %d bytes compressed, over the budget of %d (640 KiB of a 1 MiB ConfigMap): garbage-collect revisions or split the fleet", buf.Len(), Budget)
	}
	return buf.Bytes(), nil
}

// Decode parses and validates a state document.
func Decode(b []byte) (*State, error) {
	if len(b) == 0 {
		return nil, ErrNoState
	}
	if len(b) > MaxConfigMapBytes {
		return nil, fmt.Errorf("decode state: %d bytes, over the ConfigMap limit", len(b))
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("decode state: not gzip: %w", err)
	}
	// sized once from gzip's trailer (the inflated size, a hint: never past the limit)
	buf := bytes.NewBuffer(make([]byte, 0, inflatedHint(b)+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(zr, MaxInflated+1)); err != nil {
		return nil, fmt.Errorf("decode state: corrupt gzip: %w", err)
	}
	raw := buf.Bytes()
	if len(raw) > MaxInflated {
		return nil, fmt.Errorf("decode state: %d bytes inflate past %d (8× the ConfigMap's limit): a gzip bomb, not a state (%s)", len(b), MaxInflated, rebuild)
	}
	return DecodeJSON(raw)
}

// inflatedHint is the size gzip's trailer gives for the inflated data, bounded by what
// deflate can inflate b to (≈1032×) and by the limit: a corrupt or hand-made trailer
// cannot make a decode allocate more than the data could hold.
func inflatedHint(b []byte) int {
	if len(b) < 4 {
		return 0
	}
	hint := uint64(binary.LittleEndian.Uint32(b[len(b)-4:]))
	return int(min(hint, uint64(len(b))*1032, MaxInflated))
}

// DecodeJSON parses and validates an uncompressed state document (as in a --state-file).
// A valid document is read once, strictly; only one that fails is read again for its
// schema, so a document of another schema says so rather than naming a field it has.
func DecodeJSON(raw []byte) (*State, error) {
	if len(raw) > MaxInflated {
		return nil, fmt.Errorf("decode state: %d bytes, over the limit of %d", len(raw), MaxInflated)
	}
	if err := jsoncost.CheckRaw(raw, revisionsKey, MaxDecodeCost); err != nil {
		return nil, fmt.Errorf("decode state: %w (%s)", err, rebuild)
	}
	return decodeStrict(raw)
}

// decodeStrict is DecodeJSON once the document's size and cost are known to be bounded.
func decodeStrict(raw []byte) (*State, error) {
	var s State
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	err := d.Decode(&s)
	if err != nil || s.Schema != Schema || !onlySpace(raw[d.InputOffset():]) {
		return nil, refused(raw, err)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("decode state: %w", err)
	}
	return &s, nil
}

// refused is why raw is no state document this build reads: not JSON (or more than one
// value), another schema, or strictErr (an unknown field, a wrong type).
func refused(raw []byte, strictErr error) error {
	var head struct {
		Schema int `json:"schema"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return fmt.Errorf("decode state: corrupt json: %w", err)
	}
	if head.Schema != Schema {
		return fmt.Errorf("decode state: schema %d, this cmp-phase reads %d (fix: upgrade cmp-phase)", head.Schema, Schema)
	}
	if strictErr == nil { // unreachable: a valid single value of this schema decodes strictly or fails with strictErr
		return errors.New("decode state: not a state document")
	}
	return fmt.Errorf("decode state: %w", strictErr)
}

// onlySpace reports whether b is JSON whitespace only.
func onlySpace(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// FromConfigMap decodes the state held by a ConfigMap and checks the plain generation key
// agrees with the document.
func FromConfigMap(cm *corev1.ConfigMap) (*State, error) {
	s, err := Decode(cm.BinaryData[contract.StateKey])
	if err != nil {
		return nil, fmt.Errorf("configmap %s/%s key %s: %w", cm.Namespace, cm.Name, contract.StateKey, err)
	}
	if g, ok := cm.Data[contract.GenerationKey]; ok && g != strconv.FormatInt(s.Generation, 10) {
		return nil, fmt.Errorf("configmap %s/%s: key %s is %q but the state is at generation %d (fix: do not edit %s by hand)", cm.Namespace, cm.Name, contract.GenerationKey, g, s.Generation, contract.GenerationKey)
	}
	return s, nil
}

// ToConfigMap writes the state into cm (creating its maps).
func ToConfigMap(s *State, cm *corev1.ConfigMap) error {
	b, err := Encode(s)
	if err != nil {
		return err
	}
	if cm.BinaryData == nil {
		cm.BinaryData = map[string][]byte{}
	}
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	cm.BinaryData[contract.StateKey] = b
	cm.Data[contract.GenerationKey] = strconv.FormatInt(s.Generation, 10)
	return nil
}
