package contract

import "testing"

// TestJobValues pins the names on hook Jobs: a restarted agent finds its Jobs by them.
func TestJobValues(t *testing.T) {
	for _, c := range [][2]string{
		{LabelJobRollout, "cmp-phase.io/rollout"}, {LabelJobHook, "cmp-phase.io/hook"},
		{LabelJobPlace, "cmp-phase.io/hook-place"}, {AnnotationJobKey, "cmp-phase.io/idempotency-key"},
		{AnnotationJobRun, "cmp-phase.io/hook-run"}, {LabelHookSecret, "cmp-phase.io/hook-secret"},
		{DefaultJobServiceAccount, "default"}, {LabelLegacyJobName, "job-name"},
	} {
		if c[0] != c[1] {
			t.Errorf("got %q, want %q", c[0], c[1])
		}
	}
}
