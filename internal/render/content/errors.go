package content

import (
	"errors"
	"fmt"
)

// What can go wrong with a pattern; explain turns each into an error naming the use.
var (
	errEscapes = errors.New("it leaves the repository")
	errMissing = errors.New("no such path in the repository")
	errNoMatch = errors.New("the pattern matches no path in the repository")
	errGitDir  = errors.New("it names git's metadata, not repository content")
)

// badLink is a symbolic link that cannot be followed inside the repository.
type badLink struct {
	link string
	loop bool
}

func (e *badLink) Error() string {
	if e.loop {
		return fmt.Sprintf("symlink %q is part of a loop of symbolic links", e.link)
	}
	return fmt.Sprintf("symlink %q points outside the repository", e.link)
}

// tooLarge is a tree over one of the Limits.
type tooLarge struct {
	what  string
	limit int64
	field string
}

func (e *tooLarge) Error() string {
	return fmt.Sprintf("the repository is too large for content phasing: more than %d %s (limit %s)",
		e.limit, e.what, e.field)
}

// explain names the use and the commit in err and says how to fix it, as
// `child c: spec.source.path "apps/c": <what> at commit <sha> (fix: <how>)`.
func explain(u Use, commit string, err error) error {
	at := ""
	if isHex(commit) {
		at = " at commit " + commit
	}
	var bl *badLink
	var tl *tooLarge
	fix := "check that the checkout is complete and readable by the plugin"
	switch {
	case errors.Is(err, errEscapes):
		fix, at = "use a path inside the repository", ""
	case errors.Is(err, errMissing):
		fix = "create it, or correct the path in the spec's template"
	case errors.Is(err, errNoMatch):
		fix = "add a matching file, or correct the pattern in the spec's template"
	case errors.Is(err, errGitDir):
		fix, at = "name a path outside .git", ""
	case errors.As(err, &bl) && bl.loop:
		fix = "break the loop"
	case errors.As(err, &bl):
		fix = "make the link relative and inside the repository, or remove it"
	case errors.As(err, &tl):
		fix = "narrow the paths, raise the limit, or turn pinning off with pinCommits: false"
	}
	return fmt.Errorf("child %s: %s %q: %w%s (fix: %s)", u.Child, u.From, u.Pattern, err, at, fix)
}

// isHex reports whether s looks like a commit id, full or abbreviated.
func isHex(s string) bool {
	if len(s) < 4 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
