package main

import (
	"context"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/cmp-phase/cmp-phase/internal/state"
)

func TestWaitEndsOnATerminalRolloutOnly(t *testing.T) {
	cases := map[state.RolloutStatus]struct {
		code  int
		ended bool
	}{
		state.RolloutProgressing: {0, false},
		state.RolloutRollingBack: {0, false},
		state.RolloutCompleted:   {exitOK, true},
		state.RolloutStopped:     {exitFailed, true},
		state.RolloutRolledBack:  {exitFailed, true},
		state.RolloutAbandoned:   {exitFailed, true},
	}
	for status, want := range cases {
		code, ended := ending(&state.State{Rollout: &state.Rollout{Status: status}})
		if code != want.code || ended != want.ended {
			t.Errorf("%s: exit %d ended %v, want %d %v", status, code, ended, want.code, want.ended)
		}
	}
	if code, ended := ending(&state.State{}); code != exitOK || !ended {
		t.Error("no rollout: the deployed revision is everywhere: exit 0")
	}
}

// TestWaitFollowsTheWatchAndListsAgainWhenItExpires: --wait reads no state by GET; it
// follows a watch, and when the API server ends the watch as expired (410), it lists
// again and sees the change the expired watch missed.
func TestWaitFollowsTheWatchAndListsAgainWhenItExpires(t *testing.T) {
	kc := fake.NewClientset(stateCM(t, "argocd", "web", state.RolloutProgressing, 0, []string{"a"}, []string{"b"}))
	expiring := watch.NewFake()
	watched := make(chan struct{})
	var once sync.Once
	kc.PrependWatchReactor("configmaps", func(k8stesting.Action) (bool, watch.Interface, error) {
		first := false
		once.Do(func() { first = true; close(watched) })
		return first, expiring, nil // the first watch is ours; later ones the tracker's
	})
	done := make(chan int)
	var errOut string
	go func() {
		var code int
		_, errOut, code = runFake(t, kc, "argocd", "status", "web", "--wait", "--timeout", "30s")
		done <- code
	}()
	<-watched
	next := stateCM(t, "argocd", "web", state.RolloutCompleted, 1, []string{"a"}, []string{"b"})
	if _, err := kc.CoreV1().ConfigMaps("argocd").Update(context.Background(), next, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	expiring.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "too old resource version"})
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("exit %d (%s), want 0: the list after the expired watch shows Completed", code, errOut)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the wait did not list again after its watch expired")
	}
	lists := 0
	for _, a := range kc.Actions() {
		if a.GetResource().Resource != "configmaps" {
			continue
		}
		switch a.GetVerb() {
		case "get":
			t.Errorf("--wait read the state by GET: %v", a)
		case "list":
			if l, ok := a.(k8stesting.ListAction); ok && l.GetListRestrictions().Fields.String() == "metadata.name=web-state" {
				lists++ // the state's (show then lists the shard plans by label)
			}
		}
	}
	if lists < 2 {
		t.Fatalf("listed %d times, want a list again after the watch expired", lists)
	}
}
