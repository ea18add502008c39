package render

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// TestClusterLabelCheckAgreesWithKubernetes: the render's check of a label value accepts
// exactly what Kubernetes does.
func TestClusterLabelCheckAgreesWithKubernetes(t *testing.T) {
	for _, v := range []string{"", "a", "A", "0", "a-b", "a_b", "a.b", "-a", "a-", "_a", "a_", ".a", "a.", "a b", "a/b", "a:b", "é",
		strings.Repeat("a", 63), strings.Repeat("a", 64), "arn:aws:eks:eu-west-1:123456789012:cluster/prod"} {
		want := len(validation.IsValidLabelValue(v)) == 0
		if got := isLabelValue(v); got != want {
			t.Errorf("isLabelValue(%q) = %v, Kubernetes says %v", v, got, want)
		}
	}
}
