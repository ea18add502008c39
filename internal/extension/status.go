package extension

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/cmp-phase/cmp-phase/internal/contract"
	"github.com/cmp-phase/cmp-phase/internal/status"
)

// errNotParent is a parent the handler will not serve: not in its namespace, missing, of
// another project, or rendering no cmp-phase rollout. The response says no more.
var errNotParent = errors.New("not a cmp-phase parent Application")

// found is the rollout a parent renders, with its plans.
type found struct {
	rollout string
	plans   []corev1.ConfigMap
}

// rolloutOf finds the rollout the parent renders: the rollout its annotation names (the
// agent writes it), confirmed by a plan of that rollout naming the parent, so an
// annotation alone never opens another rollout.
func (h *handler) rolloutOf(ctx context.Context, p identity) (found, error) {
	if p.namespace != h.o.Namespace {
		return found{}, errNotParent
	}
	app, err := h.o.Applications.Applications(p.namespace).Get(ctx, p.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return found{}, errNotParent
	} else if err != nil {
		return found{}, fmt.Errorf("read the parent Application: %w", err)
	}
	rollout := app.Annotations[contract.ParentRollout]
	if app.Spec.GetProject() != p.project || rollout == "" {
		return found{}, errNotParent
	}
	sel := contract.PlanSelector + "," + contract.RolloutSelector(rollout)
	plans, err := h.o.ConfigMaps.ConfigMaps(h.o.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return found{}, fmt.Errorf("list the plans of %s: %w", rollout, err)
	}
	for _, cm := range plans.Items {
		if cm.Annotations[contract.AnnotationParent] == p.name {
			return found{rollout: rollout, plans: plans.Items}, nil
		}
	}
	return found{}, errNotParent
}

// status serves the rollout's status document, as `cmp-phase status -o json` prints it.
func (h *handler) status(w http.ResponseWriter, r *http.Request) {
	p, err := parentOf(r)
	if err != nil {
		refuse(w, http.StatusBadRequest, err.Error())
		return
	}
	f, ok := h.find(w, r, p)
	if !ok {
		return
	}
	cm, err := h.o.ConfigMaps.ConfigMaps(h.o.Namespace).Get(r.Context(), contract.StateConfigMap(f.rollout), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		refuse(w, http.StatusNotFound, "the rollout has no state yet (fix: wait for the agent to start its first rollout)")
		return
	} else if err != nil {
		h.failed(w, "read the state", f.rollout, err)
		return
	}
	doc, err := status.Load(f.rollout, cm, f.plans)
	if err != nil {
		h.failed(w, "decode the state", f.rollout, err)
		return
	}
	w.Header().Set(HeaderActions, onOff(h.o.Actions))
	w.Header().Set(HeaderNamespace, h.o.Namespace)
	writeJSON(w, http.StatusOK, doc)
}

// find answers 404 (or 500) itself when the parent is none it serves.
func (h *handler) find(w http.ResponseWriter, r *http.Request, p identity) (found, bool) {
	f, err := h.rolloutOf(r.Context(), p)
	switch {
	case errors.Is(err, errNotParent):
		refuse(w, http.StatusNotFound, fmt.Sprintf("%s:%s is not a cmp-phase parent this agent serves", p.namespace, p.name))
		return found{}, false
	case err != nil:
		h.failed(w, "find the rollout", p.name, err)
		return found{}, false
	}
	return f, true
}

// failed logs what went wrong and answers 500 without it: an API error may name more than
// the user may read.
func (h *handler) failed(w http.ResponseWriter, what, name string, err error) {
	h.o.Log.Error("extension request failed", "what", what, "name", name, "error", err)
	refuse(w, http.StatusInternalServerError, what+" failed (the agent's log says why)")
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
