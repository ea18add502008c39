package targets

// Child is one child a revision generates, as a phase's targets see it: Key is the child
// Application's name, Subject what its targets are evaluated against. The renderer builds
// children (render.Subjects) and the engine assigns them to phases (rollout.Snapshot); it
// lives here, beside Subject, so that neither has to import the other.
type Child struct {
	Key string
	Subject
	// Absent: the cluster's Secret is gone (held for the removal grace). Its child renders
	// as it was and takes part in no rollout.
	Absent bool
}
