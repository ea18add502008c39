// Package sectable makes the security page's table of adversarial tests from the tests
// themselves: areas lists, per area of attack, the test functions that try bad inputs and
// how the product handles them; the cases are counted from those functions' tables with
// go/ast, and the fault suite's faults from the calls its tests make. Nothing here runs a
// test: `go run ./hack/securitytable -w` writes the table into docs/security.md, and
// test/docs fails when the page differs from what the tests say.
package sectable

// An area is one kind of hostile input: the tests that try it, and how every case of theirs
// is handled. A test is "dir:TestName", dir relative to the repository root, optionally
// followed by "+helper" (each call to helper in the test is a case too: a test written as a
// list of calls) and "!skip" (a table row holding the identifier or literal skip, as
// written, is a near-miss that must pass, not a case).
type area struct {
	name    string
	handled string
	tests   []string
}

// areas are the adversarial tests by area. Every test named must exist; its cases are the
// rows of the tables it ranges over (see pkg.cases).
var areas = []area{
	{"bad specs (fields, sizes, aliases, composition, versions)",
		"refused by `validate`, the sidecar and the agent alike, naming file, line, field and the fix; nothing rendered",
		[]string{
			"internal/spec:TestParseErrorsNameFileLineAndField",
			"internal/spec:TestComposedSpecsRefuse",
			"internal/spec:TestSeveralDeploymentStrategiesAreRefused",
			"internal/spec:TestABadTracksNamesTheField",
			"internal/spec:TestApprovalRefusals",
			"internal/spec:TestFailureHooksThatCannotMeanAnythingAreRefused",
			"internal/spec:TestABadOrderingNamesTheField",
			"internal/spec:TestAnUnknownFailurePolicyNamesTheFieldAndTheSpellings",
			"internal/spec:TestWindowCompileErrorsNameFieldAndFix",
			"internal/spec:TestBatchChecksNeedPhasesWithChecks",
			"internal/spec:TestLimits",
			`internal/spec:TestMinVersion !""`,
			"internal/spec:TestBillionLaughsIsRefusedQuickly",
			"internal/spec:TestALargeSpecWithoutAliasesIsRefusedAsLarge",
			"internal/spec:TestADeepDocumentIsRefusedAsDeep",
			"internal/agent/failure:TestAnInvalidInputSaysItsFixOnce",
		}},
	{"expressions (selectors, order and spread keys)",
		"refused at load when they could run without bound, read the time or are no key; bounded at evaluation",
		[]string{
			"internal/targets:TestExpressionsCannotAllocateWithoutBound",
			"internal/targets:TestEvaluationIsBounded",
			"internal/targets:TestAnExpressionCannotReadTheTime",
			"internal/targets:TestCompileKeyRefusesWhatCannotBeAKey",
			"internal/targets:TestOrderingErrorsNameTheField",
			"internal/targets:TestExpressionsAreCheckedAtLoad",
			"internal/targets:TestTheMeterKeepsTypeErrorsAtLoad",
		}},
	{"Go templates (loops, recursion, growing values, functions that change every render)",
		"refused at load with line and column when literals already pass the bounds or a function is refused; every execution stops at its steps, bytes, output, depth or time, and a render at its deadline",
		[]string{
			"internal/render/tmpl:TestBombsStopAtTheirBounds",
			"internal/render/tmpl:TestBombsInAChildProcess",
			"internal/render/cmpserver:TestARenderPastItsTimeoutEndsAndOthersGoOn",
		}},
	{"cluster names and fields filled into hooks",
		"escaped for where they land (URL segment or query value, JSON or PromQL string, one argv element); what no value could make safe refused by `validate`, the rest Errored at run time",
		[]string{
			"internal/hooks/httphook:TestAClusterValueIsOnePathSegmentOrOneQueryValue",
			"internal/hooks/httphook:TestAClusterValueNeverSetsTheHost",
			"internal/hooks/httphook:TestAClusterValueInAJSONBodyStaysOneString",
			"internal/hooks/httphook:TestAClusterValueInAFormOrXMLBodyStaysOneValue",
			"internal/hooks/httphook:TestAClusterValueNeverStartsAnotherHeader",
			"internal/hooks/metrichook:TestAClusterValueStaysInsideItsPromQLString",
			"internal/hooks/metrichook:TestAClusterValueOutsideAPromQLStringIsANameOrNumber",
			"internal/hooks/metrichook:TestAClusterValueNeverSetsPrometheusHost",
			"internal/hooks/commandhook:TestAClusterValueIsOneArgumentAndNeverAnOption",
			"internal/hooks/commandhook:TestTheProgramIsNeverAClusterValue",
			"internal/hooks/jobhook:TestAClusterValueIsNeverAJobContainersOption",
			"internal/hooks:TestTemplateProblemNamesThePartOfTheURL",
			"internal/spec:TestValidateAcceptsWhatAHookRunCanFillAndNothingElse",
		}},
	{"command hooks' environment",
		"refused with the fix by `validate`, the sidecar and the agent's runner",
		[]string{
			"internal/hooks/commandhook:TestCommandEnvRefused",
			"internal/hooks/commandhook:TestCommandEnvInjectionRefused",
		}},
	{"Job hook blocks, labels, pod fields and cluster credentials",
		"refused naming the field and the fix (the pod spec is an allowlist); what only the run can see (the project, the workload, the cluster's credentials) Errored",
		[]string{
			"internal/hooks/jobhook:TestAJobPodIsAnAllowlist",
			"internal/hooks/jobhook:TestAJobIsBuiltRestricted",
			"internal/hooks/jobhook:TestJobHookErrorsNameTheField",
			"internal/hooks/jobhook:TestJobHookRefusesWhatTheAgentDoesNotGrant",
			"internal/hooks/jobhook:TestJobPodReservedLabels",
			"internal/hooks/jobhook:TestJobPodLabelsAreALimit",
			"internal/hooks/jobhook:TestJobSecretsMustBeLabelled",
			"internal/hooks/jobhook:TestExecNewPodErrorsNameTheField",
			"internal/hooks/jobhook:TestExecNewPodErrors",
			"internal/hooks/jobhook:TestExecNewPodNeedsTheProjectToPermitTheWorkload",
			"internal/hooks/jobhook:TestJobPerClusterErrors",
			"internal/hooks/jobhook:TestClusterRESTConfigRefuses",
		}},
	{"SSRF addresses (http hooks, metric checks)",
		"Errored before a byte reaches the refused address: the resolved address is checked and dialled, redirects re-checked; a redirect to another host carries none of the spec's headers",
		[]string{
			"internal/hooks/httphook:TestSSRFTable",
			"internal/hooks/httphook:TestAURLFromAnAnnotationMustStillBeHTTP",
			"internal/hooks/httphook:TestARedirectToAnotherHostCarriesNoHeaderOfTheSpec",
			"internal/hooks:TestANameWithOneRefusedAddressIsRefused",
			"internal/hooks:TestSpecialPurposeAddresses !allowed",
			"internal/hooks/metrichook:TestAMetricCheckIsRefusedAPrivateAddressUnlessAllowed",
		}},
	{"secrets in results, messages and pod logs",
		"redacted (also escaped, quoted and in base64); withheld when redaction cannot be sure",
		[]string{
			"internal/hooks:TestASecretIsRedactedInItsEscapedForms",
			"internal/hooks:TestASecretIsRedactedInItsJSONAndBase64Forms",
			"internal/hooks:TestAMessageOfACallWithATooShortSecretIsWithheld",
			"internal/hooks/httphook:TestSecretsNeverLeaveAnHTTPResult",
			"internal/hooks/httphook:TestAMessageOfACallWithATooShortSecretIsWithheld",
			"internal/hooks/commandhook:TestSecretsNeverLeaveInAResult",
			"internal/hooks/jobhook:TestRedactLog",
			"internal/hooks/jobhook:TestRedactLogLeakWithholds",
			"internal/hooks/jobhook:TestASecretThatCouldHideInTheLogWithholdsIt",
			"internal/hooks/jobhook:TestASecretIsRedactedInItsJSONAndBase64Forms",
			"internal/hooks/jobhook:TestPodLogRedactsWholeSecrets",
		}},
	{"cluster credentials in the inventory and reports",
		"withheld: names, servers, projects, labels and short plain annotations only",
		[]string{
			"internal/clustersecrets:TestOnlyShortPlainAnnotationsArePublished",
			"internal/clustersecrets:TestInventoryNeverCarriesCredentials",
			"internal/render/content:TestACredentialInARemoteURLIsNotReported",
		}},
	{"steering keys, state, inventory and plan ConfigMap edits",
		"refused with the fix, never guessed; nothing written, the render fails closed",
		[]string{
			"internal/control:TestEveryInvalidEditSaysWhatToDo",
			"internal/control:TestInvalidApprovalKeysSayWhatToDo",
			"internal/steer:TestARefusedEditWritesNothingAndSaysWhy",
			"internal/state:TestDecodeRefusesWhatItCannotTrust",
			"internal/state:TestEncodeRefusesOverBudget",
			"internal/statestore:TestAStateAReadWouldRefuseIsNeverWritten",
			"internal/render/inputs:TestInventoryConfigMapRefusesWhatItCannotTrust",
			"internal/plan:TestABadPlanIsRefusedNamingTheFix",
			"internal/extension:TestRefusals",
			"internal/state:TestDecodingAHostileStateIsBoundedInMemory",
			"internal/state:TestCostBoundsWhatDecodingAllocates",
			"internal/inventory:TestAnInventoryCostsWhatItsClustersDoNotWhatItsBytesCouldHold",
			"internal/render:TestARevisionBodyIsWeighedBeforeItIsDecoded",
			"internal/control:TestASkipListOfManyNamesIsReadInLinearTime",
			"internal/rollout:TestABadSkipKeyIsReportedOncePerChange",
			"internal/rollout:TestAPhaseGenWithNoGenerationAfterItFailsTheRebuildClosed",
			"internal/extension:TestAGroupsHeaderThatMaySplitAGroupRecordsNone",
		}},
	{"forged notices (a child carrying the parent's keys, hostile values in templates)",
		"the parent's keys refused on children; every notification template escapes what it pastes; triggers fire on parents only",
		[]string{
			"internal/render:TestAChildNeverCarriesTheParentsAnnotations",
			"internal/status:TestEveryNotificationTemplateEscapesWhatItPastes",
		}},
	{"repository content (symlinks, loops, sizes)",
		"refused: the digest fails closed and nothing is rendered",
		[]string{
			"internal/render/content:TestDigestErrors +wantErr",
			"internal/render/content:TestDigestSymlinkLoops",
			"internal/render/content:TestDigestLimits +wantErr",
		}},
	{"CLI and agent flags",
		"refused before anything is read or written, most naming the fix",
		[]string{
			"cmd/cmp-phase:TestSteeringCommandsRefuseBadFlagsBeforeTouchingAnything",
			"cmd/cmp-phase:TestAnswersRefuseBy",
			"cmd/agent:TestFlagsHaveDefaultsAndBadOnesSayWhatToDo",
			"internal/hooks/jobhook:TestJobAllowedLabelsFlag",
			"internal/agent/argoapi:TestNewRefusesWhatCannotWork",
			"cmd/cmp-phase:TestPlanRefusesTheClusterNamesARenderRefuses",
		}},
}
