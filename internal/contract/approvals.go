package contract

// Keys of the state ConfigMap for approval gates (beside ApproveKey). The CLI writes the
// approver keys with approve and reject from the identity the API server authenticates (a
// SelfSubjectReview); a person editing the ConfigMap by hand is trusted as written (RBAC on
// the ConfigMap is the boundary). The agent removes them with the approve or reject they
// belong to.
const (
	// RejectKey names the phase whose approval gate a person refuses: the phase fails with
	// its onFailure. ReasonKey says why.
	RejectKey = "reject"
	// ApproverKey is who approves or rejects (without it, ByKey).
	ApproverKey = "approver"
	// ApproverGroupsKey are the approver's groups, comma-separated.
	ApproverGroupsKey = "approver-groups"
)
