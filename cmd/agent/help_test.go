package main

import (
	"bytes"
	"flag"
	"regexp"
	"strings"
	"testing"
)

// TestHelpNamesEachFlagsType: flag.PrintDefaults takes a backquoted phrase in a usage as
// the flag's argument name (-argocd-token-file applications, get); no usage has one, so
// every line of -h says the flag's type.
func TestHelpNamesEachFlagsType(t *testing.T) {
	var help bytes.Buffer
	if _, err := parse([]string{"-h"}, &help); err != flag.ErrHelp {
		t.Fatalf("-h: %v", err)
	}
	flagLine := regexp.MustCompile(`^  -[a-z-]+( (string|duration|int|float|uint|value|bool))?$`)
	for _, l := range strings.Split(help.String(), "\n") {
		if strings.HasPrefix(l, "  -") && !flagLine.MatchString(l) {
			t.Errorf("help line %q: a flag's argument is named by its type", l)
		}
	}
	if !strings.Contains(help.String(), "-argocd-token-file string") {
		t.Errorf("help: %s", help.String())
	}
}
