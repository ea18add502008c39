package agent

import (
	"context"
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/cmp-phase/cmp-phase/internal/agent/failure"
	"github.com/cmp-phase/cmp-phase/internal/agent/rerender"
	"github.com/cmp-phase/cmp-phase/internal/agent/shardset"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/shard"
)

// readShards reads the shards of a rollout whose shard-0 plan says it is sharded (nil when
// it is not), and why the rollout's plans disagree on its shards ("" when they agree).
// Every shard's parent wakes the rollout.
func (a *Agent) readShards(ctx context.Context, name string, plan0 *corev1.ConfigMap) ([]shardset.Member, string, error) {
	sh0, err := shard.Parse(plan0.Annotations[contract.AnnotationShard])
	if err != nil {
		return nil, "", failure.InvalidInput(fmt.Errorf("plan %s: %s: %w", plan0.Name, contract.AnnotationShard, err), "let its parent render it again")
	}
	plans, err := a.caches.plans.List(labels.SelectorFromSet(labels.Set{contract.LabelRollout: name}))
	if err != nil {
		return nil, "", fmt.Errorf("list plans of %s: %w", name, err)
	}
	if why := shardset.Conflict(plan0.Annotations[contract.AnnotationParent], sh0, plans); why != "" || !sh0.Sharded() {
		return nil, why, nil
	}
	out := make([]shardset.Member, sh0.N)
	for k := range out {
		s := &out[k]
		s.Shard, s.Plan = shard.Shard{K: k, N: sh0.N}, contract.ShardPlanConfigMap(name, k)
		cm := plan0
		if k > 0 {
			if cm, err = a.caches.plans.Get(s.Plan); apierrors.IsNotFound(err) {
				continue
			} else if err != nil {
				return nil, "", fmt.Errorf("read plan of shard %s: %w", s.Shard, err)
			}
		}
		s.Found, s.Says, s.Parent = true, cm.Annotations[contract.AnnotationShard], cm.Annotations[contract.AnnotationParent]
		s.Revision, s.View = cm.Data[contract.PlanRevisionKey], cm.Annotations[contract.AnnotationShardView]
		s.PlanGen = rerender.ParseGeneration(cm.Annotations[contract.AnnotationGeneration])
		s.ChildEnv = cm.Data[contract.PlanChildrenKey]
		s.Children, _ = strconv.Atoi(cm.Annotations[contract.AnnotationShardChildren])
		if s.Parent != "" {
			a.parents.Set(s.Parent, name)
			app, err := a.parentApp(ctx, s.Parent)
			if err == nil {
				s.App = app
			} else if !apierrors.IsNotFound(err) {
				return nil, "", err
			}
		}
	}
	return out, "", nil
}

// shardKey is the re-render memory's key of shard k of a rollout.
func shardKey(rollout string, k int) string { return rollout + "#shard-" + strconv.Itoa(k) }

// shardsSince is since when each shard's view has differed from its plan, from the agent's
// memory (not when its re-render was last asked for: asking again every ConfirmAfter would
// keep the overdue hold from ever firing).
func (a *Agent) shardsSince(rollout string, shards []shardset.Member) map[int]time.Time {
	out := map[int]time.Time{}
	for _, s := range shards {
		out[s.Shard.K] = a.remembered(shardKey(rollout, s.Shard.K)).since
	}
	return out
}
