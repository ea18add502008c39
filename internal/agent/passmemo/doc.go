// Package passmemo is what the agent keeps of each rollout between its passes, so a pass
// works on what changed: the state it last decoded or wrote (statestore.Memo: a state read
// unchanged is not decoded again), each child's observation by the object version it was
// made of (a child not changed since is not observed again), the children it moved that
// its cache does not show moved yet (not moved again, which could only conflict), and the
// annotations it last patched onto the parent. At 10,000 children the first two were most
// of a pass's time and garbage. A Set holds one Memory per rollout, made on first use.
package passmemo
