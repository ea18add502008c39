package contract

import "testing"

// TestValues pins every value of the contract: a change here changes what is on people's
// clusters and in their parents, so it must be deliberate (and come with a migration).
func TestValues(t *testing.T) {
	for _, c := range [][2]string{
		{InventoryConfigMap, "cmp-phase-inventory"},
		{StateConfigMap("guestbook"), "guestbook-state"},
		{PlanConfigMap("guestbook"), "guestbook-plan"},

		{StateKey, "state.json.gz"}, {GenerationKey, "generation"}, {StatusKey, "status"},
		{PauseKey, "pause"}, {PauseUntilKey, "pause-until"}, {ResumeKey, "resume"},
		{ApproveKey, "approve"}, {PromoteKey, "promote"}, {JumpKey, "jump"}, {ForceKey, "force"},
		{AbortKey, "abort"}, {RollbackKey, "rollback"}, {SkipKey, "skip"},
		{ConfirmRemovalKey, "confirm-removal"}, {ByKey, "by"}, {ReasonKey, "reason"},
		{RejectKey, "reject"}, {ApproverKey, "approver"}, {ApproverGroupsKey, "approver-groups"},
		{PlanSpecKey, "spec.json"}, {PlanPhasesKey, "phases.json"}, {PlanRevisionKey, "revision"},
		{PlanRevisionsKey, "revisions.json"}, {PlanUnphasedKey, "unphased.json"}, {PlanChildrenKey, "children.json"},
		{InventoryKey, "clusters.json"},

		{LabelRollout, "cmp-phase.io/rollout"}, {LabelCluster, "cmp-phase.io/cluster"},
		{LabelPhase, "cmp-phase.io/phase"}, {LabelPlan, "cmp-phase.io/plan"},
		{LabelState, "cmp-phase.io/state"}, {MarkerValue, "true"}, {OperationInfoAdmission, "cmp-phase.io/admission"}, {OperationInfoAttempt, "cmp-phase.io/attempt"},
		{PlanSelector, "cmp-phase.io/plan=true"}, {StateSelector, "cmp-phase.io/state=true"},
		{RolloutSelector("guestbook"), "cmp-phase.io/rollout=guestbook"},
		{AnnotationRevision, "cmp-phase.io/revision"}, {AnnotationPosition, "cmp-phase.io/position"},
		{AnnotationGeneration, "cmp-phase.io/state-generation"},
		{AnnotationParent, "cmp-phase.io/parent"},

		{AnnotationSyncOptions, "argocd.argoproj.io/sync-options"},
		{DefaultSyncOptions, "Prune=false,Delete=false"},
		{AnnotationGeneratePaths, "argocd.argoproj.io/manifest-generate-paths"},
		{FinalizerResources, "resources-finalizer.argocd.argoproj.io"},
		{FinalizerResourcesBackground, "resources-finalizer.argocd.argoproj.io/background"},
		{FinalizerResourcesForeground, "resources-finalizer.argocd.argoproj.io/foreground"},
		{FinalizerChildren, "cmp-phase.io/children"}, {AnnotationTeardown, "cmp-phase.io/teardown"}, {FleetConfigMap, "cmp-phase-fleet"}, {StopAllKey, "stop-all"}, {SpecRemovedMarker, "spec removed from git"},
		{ConfirmRemoveRolloutKey, "confirm-remove-rollout"},
		{OverrideWindowKey, "override-window"}, {WindowsKey, "windows"},
		{LabelSecretType, "argocd.argoproj.io/secret-type"}, {SecretTypeCluster, "cluster"},
		{ClusterSecretSelector, "argocd.argoproj.io/secret-type=cluster"},
		{AnnotationRefresh, "argocd.argoproj.io/refresh"}, {AnnotationHydrate, "argocd.argoproj.io/hydrate"},
		{AnnotationInstance, "argocd.argoproj.io/instance"},
		{AnnotationInstallationID, "argocd.argoproj.io/installation-id"},

		{PluginName, "cmp-phase-v1"}, {DefaultNamespace, "argocd"},
		{PreviewMarker, "cmp-phase-preview.yaml"}, {RevisionStreamed, "streamed"},
		{EnvPrefix, "ARGOCD_ENV_"}, {EnvPhaseGen, "PHASE_GEN"}, {EnvSyncOptions, "SYNC_OPTIONS"},
		{PluginEnvPhaseGen, "ARGOCD_ENV_PHASE_GEN"}, {PluginEnvSyncOptions, "ARGOCD_ENV_SYNC_OPTIONS"},
		{EnvAppName, "ARGOCD_APP_NAME"}, {EnvAppNamespace, "ARGOCD_APP_NAMESPACE"},
		{EnvAppRevision, "ARGOCD_APP_REVISION"}, {EnvAppSourcePath, "ARGOCD_APP_SOURCE_PATH"},
		{EnvAppSourceRepoURL, "ARGOCD_APP_SOURCE_REPO_URL"},
		{EnvAppSourceTargetRevision, "ARGOCD_APP_SOURCE_TARGET_REVISION"},
		{EnvStateNamespace, "CMP_PHASE_STATE_NAMESPACE"},
		{EnvAppSetName, "APPSET_NAME"}, {EnvAppSetNamespace, "APPSET_NAMESPACE"}, {EnvHookName, "HOOK_NAME"},
		{EnvHookType, "HOOK_TYPE"}, {EnvHookKind, "HOOK_KIND"}, {EnvPhaseName, "PHASE_NAME"},
		{EnvRolloutRevision, "ROLLOUT_REVISION"}, {EnvClusterName, "CLUSTER_NAME"}, {EnvIdempotencyKey, "IDEMPOTENCY_KEY"},
		{HeaderAppSetName, "X-AppSet-Name"}, {HeaderAppSetNamespace, "X-AppSet-Namespace"}, {HeaderHookName, "X-Hook-Name"},
		{HeaderHookType, "X-Hook-Type"}, {HeaderHookKind, "X-Hook-Kind"}, {HeaderAppSetPhase, "X-AppSet-Phase"},
		{HeaderAppSetCluster, "X-AppSet-Cluster"}, {HeaderIdempotency, "Idempotency-Key"}, {HeaderUserAgent, "User-Agent"},
		{HookUserAgentValue, "ArgoCD-ApplicationSet-PhaseHook/1.0"},
		{AnnotationMinVersion, "argocd.argoproj.io/min-version"},
		{EnvPluginSocketDir, "ARGOCD_PLUGINSOCKFILEPATH"},
		{DefaultPluginSocketDir, "/home/argocd/cmp-server/plugins"},
	} {
		if c[0] != c[1] {
			t.Errorf("got %q, want %q", c[0], c[1])
		}
	}
}

func TestRolloutOfState(t *testing.T) {
	for name, want := range map[string]string{"guestbook-state": "guestbook", "a-state-state": "a-state", "-state": "", "guestbook-plan": "", "state": ""} {
		got, ok := RolloutOfState(name)
		if ok != (want != "") || (ok && got != want) {
			t.Errorf("RolloutOfState(%q) = %q, %v; want %q", name, got, ok, want)
		}
	}
	if r, ok := RolloutOfState(StateConfigMap("shop")); !ok || r != "shop" {
		t.Errorf("RolloutOfState does not invert StateConfigMap: %q, %v", r, ok)
	}
}

func TestIsResourcesFinalizer(t *testing.T) {
	for f, want := range map[string]bool{
		"resources-finalizer.argocd.argoproj.io": true, "resources-finalizer.argocd.argoproj.io/background": true,
		"resources-finalizer.argocd.argoproj.io/foreground": true, "resources-finalizer.argocd.argoproj.io/orphan": false,
		"pre-delete-finalizer.argocd.argoproj.io": false, FinalizerChildren: false, "": false,
	} {
		if got := IsResourcesFinalizer(f); got != want {
			t.Errorf("IsResourcesFinalizer(%q) = %v, want %v", f, got, want)
		}
	}
}
