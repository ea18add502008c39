package main

import (
	"context"
	"errors"
	"fmt"

	authv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-phase/cmp-phase/internal/steer"
)

// answers are the steering verbs that answer an approval gate: they record who the API
// server authenticates, never --by.
var answers = map[string]bool{"approve": true, "reject": true}

// errByAnswers refuses --by with approve and reject.
var errByAnswers = errors.New("--by cannot name who approves or rejects: the CLI records the user the API server authenticates " +
	"(fix: drop --by; to act as another user, impersonate with --as and --as-group)")

// whoAmI asks the API server who the caller is (a SelfSubjectReview): the user and groups
// it authenticated, the impersonated ones under --as.
func whoAmI(ctx context.Context, kc kubernetes.Interface) (steer.Identity, error) {
	r, err := kc.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return steer.Identity{}, fmt.Errorf("ask the API server who you are (SelfSubjectReview, authentication.k8s.io/v1, Kubernetes 1.28 or later): %w", err)
	}
	u := r.Status.UserInfo
	if u.Username == "" {
		return steer.Identity{}, errors.New("the API server's SelfSubjectReview names no user (fix: authenticate as a user, not anonymously)")
	}
	return steer.Identity{User: u.Username, Groups: u.Groups}, nil
}

// identify makes the authenticated user the rollout's approver, and who the history names.
func identify(ctx context.Context, kc kubernetes.Interface, r steer.Rollout) (steer.Rollout, error) {
	id, err := whoAmI(ctx, kc)
	if err != nil {
		return r, err
	}
	r.Approver, r.By = &id, id.User
	return r, nil
}
