package targets

import "testing"

// TestHashIsFixedAndSeedIsTheSubjects: hash gives the documented number for a string on
// every platform, an expression reads the subject's seed, and a target can take a seeded
// sample of the fleet.
func TestHashIsFixedAndSeedIsTheSubjects(t *testing.T) {
	k, err := (*Cache)(nil).CompileKey(`hash("prod-1")`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := k.Eval(Subject{Name: "x"})
	if err != nil || !got.IsNum || got.Num != 3877867721857950 {
		t.Fatalf("hash(\"prod-1\") = %+v, %v: FNV-1a 64 cut to 53 bits", got, err)
	}
	o := Ordering{Order: Shuffle}
	if err := o.Compile(nil); err != nil {
		t.Fatal(err)
	}
	a, _, errA := o.Keys(Subject{Name: "prod-1", Seed: "r1"})
	b, _, errB := o.Keys(Subject{Name: "prod-1", Seed: "r2"})
	if errA != nil || errB != nil || a == b {
		t.Fatalf("the seed moves a cluster's place: %+v %+v %v %v", a, b, errA, errB)
	}
	p, err := (*Cache)(nil).Compile(`hash(seed + name) % 2 == 0`)
	if err != nil {
		t.Fatalf("a seeded sample as a target: %v", err)
	}
	picked := 0
	for i := range 100 {
		if ok, err := p.Eval(Subject{Name: string(rune('a'+i%26)) + string(rune('a'+i/26)), Seed: "r1"}); err != nil {
			t.Fatal(err)
		} else if ok {
			picked++
		}
	}
	if picked < 30 || picked > 70 {
		t.Fatalf("about half the fleet: %d of 100", picked)
	}
}
