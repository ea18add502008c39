package contract

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// TestClusterLabelCheckAgreesWithKubernetes: the check of a label value accepts
// exactly what Kubernetes does.
func TestClusterLabelCheckAgreesWithKubernetes(t *testing.T) {
	for _, v := range []string{"", "a", "A", "0", "a-b", "a_b", "a.b", "-a", "a-", "_a", "a_", ".a", "a.", "a b", "a/b", "a:b", "é",
		strings.Repeat("a", 63), strings.Repeat("a", 64), "arn:aws:eks:eu-west-1:123456789012:cluster/prod"} {
		want := len(validation.IsValidLabelValue(v)) == 0
		if got := IsLabelValue(v); got != want {
			t.Errorf("IsLabelValue(%q) = %v, Kubernetes says %v", v, got, want)
		}
	}
}

// TestTheHintIsALabelValue: the name an error suggests is itself accepted.
func TestTheHintIsALabelValue(t *testing.T) {
	for v, want := range map[string]string{
		"arn:aws:eks:eu-west-1:123456789012:cluster/prod": "prod",
		"https://10.0.0.1:6443":                           "6443",
		"gke_proj_europe-west1_prod a":                    "gke_proj_europe-west1_prod-a",
		"::/":                                             "my-cluster",
		strings.Repeat("x", 70) + "!":                     strings.Repeat("x", 63),
	} {
		got := LabelValueHint(v)
		if got != want || !IsLabelValue(got) {
			t.Errorf("LabelValueHint(%q) = %q, want %q, a label value", v, got, want)
		}
	}
}
