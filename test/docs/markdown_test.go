package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// page is one Markdown file as the test reads it.
type page struct {
	path    string            // relative to the repository root, slash-separated
	anchors map[string]string // the id each heading gets on GitHub → the one mkdocs gives it
	links   []link
	blocks  []block
}

// link is a link or image target written in a page, outside code.
type link struct {
	line   int
	target string
}

// block is a fenced code block.
type block struct {
	line    int    // of the opening fence
	lang    string // the info string's first word
	text    string
	invalid bool // an <!-- invalid --> line stands right before it
}

var (
	fenceRe    = regexp.MustCompile("^\\s*(```+|~~~+)\\s*([^\\s`]*)")
	headingRe  = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	refDef     = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$`)
	htmlID     = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	schemeRe   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
	invalidRe  = regexp.MustCompile(`^\s*<!--\s*invalid\b.*-->\s*$`)
)

// readPage parses the Markdown file at root/rel.
func readPage(t *testing.T, root, rel string) *page {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	p := &page{path: rel, anchors: map[string]string{}}
	seen := map[string]int{}
	lines := strings.Split(string(b), "\n")
	var fence string // the open fence's marker, "" outside a block
	indent := 0      // the open fence's indentation (a block in a list item), cut from its lines
	var cur *block
	var body []string
	prev := "" // the last non-blank line outside a block
	for i, l := range lines {
		n := i + 1
		if fence != "" {
			if closes(l, fence) {
				cur.text = strings.Join(body, "\n") + "\n"
				p.blocks = append(p.blocks, *cur)
				fence, cur, prev = "", nil, l
			} else {
				body = append(body, dedent(l, indent))
			}
			continue
		}
		if m := fenceRe.FindStringSubmatch(l); m != nil {
			fence, indent = m[1], len(l)-len(strings.TrimLeft(l, " "))
			cur = &block{line: n, lang: strings.ToLower(m[2]), invalid: invalidRe.MatchString(prev)}
			body = nil
			continue
		}
		if strings.TrimSpace(l) != "" {
			prev = l
		}
		for _, m := range htmlID.FindAllStringSubmatch(l, -1) {
			p.anchors[m[1]] = m[1]
		}
		if m := headingRe.FindStringSubmatch(l); m != nil {
			id, mk := githubSlug(m[2]), mkdocsSlug(m[2])
			if k := seen[id]; k > 0 {
				seen[id]++
				id, mk = id+"-"+strconv.Itoa(k), mk+"_"+strconv.Itoa(k)
			} else {
				seen[id] = 1
			}
			p.anchors[id] = mk
		}
		plain := stripCode(l)
		for _, m := range inlineLink.FindAllStringSubmatch(plain, -1) {
			p.links = append(p.links, link{line: n, target: m[1]})
		}
		if m := refDef.FindStringSubmatch(plain); m != nil {
			p.links = append(p.links, link{line: n, target: m[1]})
		}
	}
	if fence != "" {
		t.Errorf("%s:%d: a code fence is never closed", rel, cur.line)
	}
	return p
}

// headingText is a heading's text as renderers slug it: code spans keep their content,
// links their text, emphasis markers go.
// stripCode drops the code spans of a line: a run of backticks up to the next run of as many.
func stripCode(l string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(l, '`')
		if i < 0 {
			return b.String() + l
		}
		b.WriteString(l[:i])
		n := len(l[i:]) - len(strings.TrimLeft(l[i:], "`"))
		run, rest := l[i:i+n], l[i+n:]
		j := strings.Index(rest, run)
		for j >= 0 && j+n < len(rest) && rest[j+n] == '`' { // a longer run does not close it
			k := strings.Index(rest[j+n:], run)
			if k < 0 {
				j = -1
				break
			}
			j += n + k
		}
		if j < 0 {
			return b.String() + rest // unmatched: literal backticks
		}
		l = rest[j+n:]
	}
}

// dedent cuts up to n leading spaces from l.
func dedent(l string, n int) string {
	for i := 0; i < n && strings.HasPrefix(l, " "); i++ {
		l = l[1:]
	}
	return l
}

// closes reports whether line l closes a block opened by the fence marker open: the same
// character, at least as many, nothing else.
func closes(l, open string) bool {
	l = strings.TrimSpace(l)
	return len(l) >= len(open) && strings.Trim(l, open[:1]) == ""
}

func headingText(h string) string {
	h = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`).ReplaceAllString(h, "$1")
	h = strings.ReplaceAll(h, "`", "")
	h = regexp.MustCompile(`<[^>]+>`).ReplaceAllString(h, "")
	return h
}

// githubSlug is the id GitHub gives a heading: lower case, punctuation but "-" and "_"
// dropped, each space a "-".
func githubSlug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(headingText(h))) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mkdocsSlug is the id Python-Markdown's toc extension (mkdocs) gives a heading: ASCII only
// (it decomposes accented letters first; this test drops them, so keep linked headings
// ASCII), punctuation but "-" and "_" dropped, runs of spaces and "-" one "-".
func mkdocsSlug(h string) string {
	s := headingText(h)
	var b strings.Builder
	for _, r := range s {
		if r < 128 && (r == '-' || r == '_' || r == ' ' || r == '\t' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	s = strings.ToLower(strings.TrimSpace(b.String()))
	return regexp.MustCompile(`[-\s]+`).ReplaceAllString(s, "-")
}
