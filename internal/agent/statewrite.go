package agent

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/agent/failure"
	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/state"
	"github.com/cmp-phase/cmp-phase/internal/statestore"
)

// step is where a read-modify-write of the state is: each can fail in its own way.
type step int

const (
	reading  step = iota // GET the ConfigMap
	decoding             // the store decodes the state it read
	deciding             // the decision (the engine, the renderer)
	encoding             // the store encodes the decided state (its size budget)
	writing              // PUT or POST the ConfigMap
)

// stateTrace follows one statestore.Store.UpdateCM (attempt by attempt: a conflict reads again)
// through its ConfigMap calls and its decision, so that a failure says where it happened:
// only a write that reached the API server and failed is a StateWriteFailed.
type stateTrace struct {
	cms  corev1client.ConfigMapsGetter
	step step
}

// stateStore is the store of a rollout's state, traced.
func (a *Agent) stateStore(name string) (*statestore.Store, *stateTrace) {
	t := &stateTrace{cms: a.kube.CoreV1()}
	return &statestore.Store{ConfigMaps: t, Namespace: a.opts.Namespace, Name: contract.StateConfigMap(name),
		OnConflict: func() { a.metrics.Conflicts.WithLabelValues(name).Inc() }, Memo: a.memoryOf(name).State}, t
}

// decide wraps a decision: it marks the steps before and after it.
func (t *stateTrace) decide(d statestore.DecideCM) statestore.DecideCM {
	return func(data map[string]string, cur *state.State) (statestore.Edit, error) {
		t.step = deciding
		e, err := d(data, cur)
		if err == nil {
			t.step = encoding
		}
		return e, err
	}
}

// failure gives the store's error its kind by the step it failed in.
func (t *stateTrace) failure(err error, object string) error {
	switch t.step {
	case decoding:
		return failure.InvalidInput(err, "restore "+object+" from a backup, or delete it and the agent rebuilds it from the live children")
	case encoding:
		return failure.Closed(err)
	case writing:
		if apierrors.IsConflict(err) {
			return err
		}
		return failure.WriteFailed(err)
	}
	return err // reading: the API error says; deciding: the decision's own
}

func (t *stateTrace) ConfigMaps(ns string) corev1client.ConfigMapInterface {
	return tracedConfigMaps{ConfigMapInterface: t.cms.ConfigMaps(ns), t: t}
}

// tracedConfigMaps notes the step of each call the store makes.
type tracedConfigMaps struct {
	corev1client.ConfigMapInterface
	t *stateTrace
}

func (c tracedConfigMaps) Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.ConfigMap, error) {
	c.t.step = reading
	cm, err := c.ConfigMapInterface.Get(ctx, name, opts)
	if err == nil || apierrors.IsNotFound(err) {
		c.t.step = decoding
	}
	return cm, err
}

func (c tracedConfigMaps) Update(ctx context.Context, cm *corev1.ConfigMap, opts metav1.UpdateOptions) (*corev1.ConfigMap, error) {
	c.t.step = writing
	return c.ConfigMapInterface.Update(ctx, cm, opts)
}

func (c tracedConfigMaps) Create(ctx context.Context, cm *corev1.ConfigMap, opts metav1.CreateOptions) (*corev1.ConfigMap, error) {
	c.t.step = writing
	return c.ConfigMapInterface.Create(ctx, cm, opts)
}
