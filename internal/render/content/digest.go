package content

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	lru "github.com/hashicorp/golang-lru/v2"
)

// Default limits on the tree one Digest call walks.
const (
	DefaultMaxFiles       = 200_000
	DefaultMaxBytes int64 = 2 << 30
)

// Limits bound the work of one Digest call; a tree over them is an error.
type Limits struct {
	// MaxFiles bounds the directory entries (files, directories, links) read; 0 is
	// DefaultMaxFiles.
	MaxFiles int
	// MaxBytes bounds the bytes of the files hashed; 0 is DefaultMaxBytes.
	MaxBytes int64
}

// Digester computes content digests and caches them by commit. Safe for concurrent use.
type Digester struct {
	cache  *lru.Cache[string, Result]
	limits Limits
}

// Result is what one walk of the uses finds: the digest, and the references in the files
// it covers that a commit does not hold still (Floating).
type Result struct {
	Digest   string
	Floating []Floating
}

// NewDigester returns a Digester that keeps the digests of at most size (commit, patterns)
// pairs. Zero or negative limits are the defaults.
func NewDigester(size int, l Limits) *Digester {
	if l.MaxFiles <= 0 {
		l.MaxFiles = DefaultMaxFiles
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	c, _ := lru.New[string, Result](max(size, 1))
	return &Digester{cache: c, limits: l}
}

// Digest returns a hex digest (the first 16 bytes of a SHA-256, 32 hex digits) of the
// files the uses name in the tree at root. commit is the full commit SHA the tree was
// checked out at: when it is a 40- or 64-hex SHA the result is cached under (commit, the
// set of patterns) so a second call for the same commit and patterns reads no file; any
// other commit value (e.g. "streamed", "") is never cached.
//
// The digest covers, in this order and each sorted: the distinct patterns; every link
// followed, by the path through it and the real path it resolves to (or its target text
// when dangling); every regular file named, by its real repository-relative path and the
// SHA-256 of its bytes. A non-glob pattern names a file or a whole directory; a glob names
// what it matches (see glob.go). Links are followed inside the repository only.
func (d *Digester) Digest(root, commit string, uses []Use) (string, error) {
	res, err := d.Scan(root, commit, uses)
	return res.Digest, err
}

// Scan is Digest with the floating references of the files it covers (floating.go),
// found in the same walk and cached with the digest.
func (d *Digester) Scan(root, commit string, uses []Use) (Result, error) {
	pats, first, err := patterns(uses)
	if err != nil {
		return Result{}, err
	}
	key := ""
	if isSHA(commit) {
		key = cacheKey(commit, pats)
		if v, ok := d.cache.Get(key); ok {
			return v, nil
		}
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return Result{}, fmt.Errorf("content digest: open the repository checkout: %w", err)
	}
	defer r.Close()
	hs := startHasher(r, d.limits.MaxBytes)
	w := newWalker(r, d.limits.MaxFiles, hs)
	for i, p := range pats {
		p, optional := strings.CutPrefix(p, optionalMark)
		if err := w.walk(i, p); err != nil && !(optional && errors.Is(err, errMissing)) {
			hs.failed.Store(true)
			hs.wait()
			return Result{}, explain(uses[first[i]], commit, err)
		}
	}
	if bad, err := hs.wait(); err != nil {
		return Result{}, explain(uses[first[w.files[bad]]], commit, err)
	}
	res := Result{Digest: compose(pats, w.links, w.jobs), Floating: floatingIn(r, w.build, pats)}
	if key != "" {
		d.cache.Add(key, res)
	}
	return res, nil
}

// optionalMark prefixes an optional pattern among the distinct patterns (no path holds a
// NUL), so the digest tells an optional path from a required one.
const optionalMark = "\x00"

// patterns returns the distinct cleaned patterns of uses, sorted, and for each the index
// of the first use naming it.
func patterns(uses []Use) ([]string, []int, error) {
	firstUse := map[string]int{}
	for i, u := range uses {
		p, err := Clean(u.Pattern)
		if err != nil {
			return nil, nil, explain(u, "", err)
		}
		if u.Optional {
			p = optionalMark + p
		}
		if _, ok := firstUse[p]; !ok {
			firstUse[p] = i
		}
	}
	pats := sortedKeys(firstUse)
	first := make([]int, len(pats))
	for i, p := range pats {
		first[i] = firstUse[p]
	}
	return pats, first, nil
}

// compose hashes the patterns, links and file sums into the digest.
func compose(pats []string, links map[string]string, jobs []*job) string {
	type file struct {
		path string
		sum  *[32]byte
	}
	var files []file
	for _, j := range jobs {
		for k, name := range j.names {
			files = append(files, file{join(j.path, name), &j.sums[k]})
		}
	}
	slices.SortFunc(files, func(a, b file) int { return strings.Compare(a.path, b.path) })
	h := sha256.New()
	h.Write([]byte("cmp-phase content v1\x00"))
	for _, p := range pats {
		fmt.Fprintf(h, "P\x00%s\x00", p)
	}
	for _, l := range sortedKeys(links) {
		fmt.Fprintf(h, "L\x00%s\x00%s\x00", l, links[l])
	}
	for _, f := range files {
		fmt.Fprintf(h, "F\x00%s\x00", f.path)
		h.Write(f.sum[:])
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// cacheKey is the commit and a hash of the sorted patterns (NUL cannot occur in a path).
func cacheKey(commit string, pats []string) string {
	h := sha256.New()
	for _, p := range pats {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return commit + ":" + hex.EncodeToString(h.Sum(nil))
}

// isSHA reports whether commit is a full SHA-1 or SHA-256 commit id in hex.
func isSHA(commit string) bool {
	return (len(commit) == 40 || len(commit) == 64) && isHex(commit)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
