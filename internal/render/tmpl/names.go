package tmpl

import "strings"

// SanitizeName behaves as Argo CD's applicationset utils.SanitizeName (the normalize
// function and the clusters generator's nameNormalized): lowercase, every character outside
// [-a-z0-9.] becomes '-', at most 253 characters, no leading or trailing '-' or '.'. Argo
// CD's compiles a regexp on every call, which dominates a 10,000-cluster render; this one is a
// rune loop. The differential test holds the two to the same output.
func SanitizeName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r == '-' || r == '.' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			return r
		}
		return '-'
	}, strings.ToLower(name))
	if len(name) > 253 {
		name = name[:253]
	}
	return strings.Trim(name, "-.")
}
