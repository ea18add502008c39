package tmpl

import (
	"strings"
	"testing"

	"github.com/argoproj/argo-cd/v3/applicationset/utils"
)

func TestSanitizeNameMatchesArgoCD(t *testing.T) {
	for _, in := range []string{"", "Dev_2.Special", "prod-ünï", "--a..b--", "in-cluster", "A B/C:D", strings.Repeat("x", 300) + "-", ".-.", "ÄÖÜ"} {
		if got, want := SanitizeName(in), utils.SanitizeName(in); got != want {
			t.Errorf("SanitizeName(%q) = %q, argo cd says %q", in, got, want)
		}
	}
}

func FuzzSanitizeNameMatchesArgoCD(f *testing.F) {
	f.Add("Dev_2.Special")
	f.Fuzz(func(t *testing.T, in string) {
		if got, want := SanitizeName(in), utils.SanitizeName(in); got != want {
			t.Fatalf("SanitizeName(%q) = %q, argo cd says %q", in, got, want)
		}
	})
}
