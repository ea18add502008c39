package version

import "testing"

func TestCanonical(t *testing.T) {
	for in, want := range map[string]string{
		"v1.2.3": "v1.2.3", "1.2.3": "v1.2.3", "1.2": "v1.2.0", "v2": "v2.0.0", "v1.3.0-rc.1": "v1.3.0-rc.1",
		"": "", "latest": "", "1.2.3.4": "", "v1.x": "",
	} {
		if got := Canonical(in); got != want {
			t.Errorf("Canonical(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReleased: only a release counts; pseudo-versions, modified checkouts and (devel)
// are development builds.
func TestReleased(t *testing.T) {
	for in, want := range map[string]string{
		"v1.2.3": "v1.2.3", "(devel)": "", "v0.0.0-20261125044000-abcdefabcdef": "",
		"v1.2.4-0.20261125044000-abcdefabcdef": "", "v1.2.3+dirty": "",
	} {
		if got := released(in); got != want {
			t.Errorf("released(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCurrentIsStamped(t *testing.T) {
	defer func(old string) { stamped = old }(stamped)
	stamped = "1.4.0"
	if got := Current(); got != "v1.4.0" {
		t.Fatalf("Current() = %q", got)
	}
}
