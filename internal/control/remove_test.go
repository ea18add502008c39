package control

import "testing"

func TestConfirmRemoveRolloutIsRead(t *testing.T) {
	cases := map[string]struct {
		value, want string
		problems    int
	}{
		"a revision": {" 4b083a5117d658f7 ", "4b083a5117d658f7", 0},
		"empty":      {"  ", "", 1},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := Parse(map[string]string{"confirm-remove-rollout": c.value}, phases, now)
			if got.ConfirmRemoveRollout != c.want || len(got.Problems) != c.problems {
				t.Fatalf("%q, problems %v", got.ConfirmRemoveRollout, got.Problems)
			}
		})
	}
}
