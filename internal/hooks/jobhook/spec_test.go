package jobhook

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// seed002Job is seed 002's db-migrate Job spec, as a job hook's block (flow style).
const seed002Job = `{name: db-migrate, type: job, job: {hookDeletePolicy: HookSucceeded, spec: {ttlSecondsAfterFinished: 360, ` +
	`template: {spec: {containers: [{name: postgresql-client, image: 'my-postgres-data:11.5', imagePullPolicy: Always, ` +
	`env: [{name: PGPASSWORD, valueFrom: {secretKeyRef: {name: db, key: password}}}, {name: POSTGRES_HOST, value: my_postgresql_db}], ` +
	`command: [psql, '-h=my_postgresql_db', '-U postgres', '-f preload.sql']}], restartPolicy: Never}}, backoffLimit: 1}}}`

func TestJobHookReadsSeed002sShape(t *testing.T) {
	s, err := parseWithCheck(seed002Job)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Phases[0].Checks[0]
	j, ok := h.Block.(*Block)
	if !ok {
		t.Fatalf("block %T", h.Block)
	}
	c := j.Spec.Template.Spec.Containers[0]
	if j.HookDeletePolicy != HookSucceeded || *j.Spec.BackoffLimit != 1 || *j.Spec.TTLSecondsAfterFinished != 360 ||
		c.Image != "my-postgres-data:11.5" || c.Env[0].ValueFrom.SecretKeyRef.Key != "password" || h.PerCluster() {
		t.Fatalf("read %+v", j)
	}
	var back spec.Hook
	if b, err := json.Marshal(h); err != nil || json.Unmarshal(b, &back) != nil || back.Block.(*Block).Spec.Template.Spec.Containers[0].Image != c.Image {
		t.Fatalf("the plan does not carry it: %v", err)
	}
}

func TestJobHookFields(t *testing.T) {
	const pod = `template: {spec: {containers: [{name: c, image: 'busybox:{{.phase.name}}'}]}}`
	for _, tc := range []struct {
		block, policy, ns string
		restart           corev1.RestartPolicy
	}{
		{block: `{spec: {` + pod + `}}`, policy: BeforeHookCreation, restart: corev1.RestartPolicyNever},
		{block: `{hookDeletePolicy: 'HookSucceeded, HookFailed,HookSucceeded', spec: {ttlSecondsAfterFinished: 300, ` + pod + `}}`, policy: "HookSucceeded,HookFailed", restart: corev1.RestartPolicyNever},
		{block: `{namespace: jobs, spec: {template: {spec: {restartPolicy: OnFailure, containers: [{name: c, image: x}]}}}}`, policy: BeforeHookCreation, ns: "jobs", restart: corev1.RestartPolicyOnFailure},
		{block: `{namespace: '{{.appset.name}}', spec: {template: {spec: {automountServiceAccountToken: false, containers: [{name: c, image: x, securityContext: {privileged: false, allowPrivilegeEscalation: false}}]}}}}`, policy: BeforeHookCreation, ns: "{{.appset.name}}", restart: corev1.RestartPolicyNever},
	} {
		s, err := parseWithCheck("{name: j, type: job, job: " + tc.block + "}")
		if err != nil {
			t.Errorf("%s: %v", tc.block, err)
			continue
		}
		h := s.Phases[0].Checks[0]
		j := h.Block.(*Block)
		if j.HookDeletePolicy != tc.policy || j.Namespace != tc.ns || j.Spec.Template.Spec.RestartPolicy != tc.restart || h.PerCluster() {
			t.Errorf("%s: got policy %q ns %q restart %q perCluster %v", tc.block, j.HookDeletePolicy, j.Namespace, j.Spec.Template.Spec.RestartPolicy, h.PerCluster())
		}
	}
}

func TestJobHookErrorsNameTheField(t *testing.T) {
	const ok = `template: {spec: {containers: [{name: c, image: x}]}}`
	for block, want := range map[string]string{
		``:        `checks[0].job: is required (fix: add job.spec`,
		`job: {}`: `checks[0].job.spec: is required (fix: write the Job's spec`,
		`job: {spec: {template: {spec: {containers: [{name: c, image: x, comand: [x]}]}}}}`: `checks[0].job.spec.template.spec.containers[0].comand: unknown field "template.spec.containers[0].comand" (fix: remove it`,
		`job: {spec: {backofLimit: 2, ` + ok + `}}`:                                         `job.spec.backofLimit: unknown field`,
		`job: {spec: {backoffLimit: two, ` + ok + `}}`:                                      `job.spec: json: cannot unmarshal string`,
		`job: {spec: [x]}`:                                           `job.spec: must be a mapping, not a list`,
		`job: {spec: {template: {spec: {}}}}`:                        `job.spec.template.spec.containers: is required (fix: list at least one container)`,
		`job: {spec: {template: {spec: {containers: [{name: c}]}}}}`: `containers[0]: name and image are required`,
		`job: {spec: {template: {spec: {restartPolicy: Always, containers: [{name: c, image: x}]}}}}`:                               `job.spec.template.spec.restartPolicy: a Job's pod cannot restart Always (fix: use Never or OnFailure)`,
		`job: {hookDeletePolicy: OnSuccess, spec: {` + ok + `}}`:                                                                    `job.hookDeletePolicy: unknown policy "OnSuccess" (fix: use one or more of HookSucceeded, HookFailed, BeforeHookCreation`,
		`job: {namespace: Bad_NS, spec: {` + ok + `}}`:                                                                              `job.namespace: invalid namespace "Bad_NS"`,
		`job: {ttl: 3, spec: {` + ok + `}}`:                                                                                         `job.ttl: unknown field "ttl" (fix: use one of: namespace, hookDeletePolicy, execNewPod, spec)`,
		`job: {spec: {template: {spec: {containers: [{name: c, image: x, env: [{name: T, value: '{{.secrets.db.password}}'}]}]}}}}`: `would write the secret's value into the Job (fix: reference the Secret from the pod: env[].valueFrom.secretKeyRef`,
	} {
		hook := "{name: j, type: job"
		if block != "" {
			hook += ", " + block
		}
		if _, err := parseWithCheck(hook + "}"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s:\n got %v\nwant %q", block, err, want)
		}
	}
}

// TestJobHookRefusesWhatTheAgentDoesNotGrant: a pod asking for more than --job-service-account and an unprivileged pod, and a ttl that could delete the
// Job before its outcome is recorded are errors naming the field.
func TestJobHookRefusesWhatTheAgentDoesNotGrant(t *testing.T) {
	const c = `{name: c, image: x}`
	pod := func(fields string) string {
		return `job: {spec: {template: {spec: {` + fields + `}}}}`
	}
	for _, tc := range []struct{ block, want string }{
		{pod(`serviceAccountName: argocd-server, containers: [` + c + `]`), `job.spec.template.spec.serviceAccountName: a job hook cannot choose its service account (fix: remove it: the agent runs every Job as its --job-service-account`},
		{pod(`serviceAccount: argocd-server, containers: [` + c + `]`), `job.spec.template.spec.serviceAccount: a job hook cannot choose its service account`},
		{pod(`automountServiceAccountToken: true, containers: [` + c + `]`), `job.spec.template.spec.automountServiceAccountToken: a job hook's pod gets no service account token`},
		{pod(`hostNetwork: true, containers: [` + c + `]`), `job.spec.template.spec.hostNetwork: a job hook's pod cannot use the node's network`},
		{pod(`hostPID: true, containers: [` + c + `]`), `job.spec.template.spec.hostPID:`},
		{pod(`hostIPC: true, containers: [` + c + `]`), `job.spec.template.spec.hostIPC:`},
		{pod(`nodeName: n1, containers: [` + c + `]`), `job.spec.template.spec.nodeName: a job hook's pod cannot bypass the scheduler`},
		{pod(`volumes: [{name: v, emptyDir: {}}, {name: h, hostPath: {path: /}}], containers: [` + c + `]`), `job.spec.template.spec.volumes[1].hostPath: a job hook's pod cannot mount a path of the node`},
		{pod(`containers: [{name: c, image: x, securityContext: {privileged: true}}]`), `job.spec.template.spec.containers[0].securityContext.privileged: a job hook's container cannot be privileged`},
		{pod(`initContainers: [{name: i, image: x, securityContext: {allowPrivilegeEscalation: true}}], containers: [` + c + `]`), `job.spec.template.spec.initContainers[0].securityContext.allowPrivilegeEscalation: a job hook's container cannot escalate`},
		{`job: {spec: {ttlSecondsAfterFinished: 299, template: {spec: {containers: [` + c + `]}}}}`, `job.spec.ttlSecondsAfterFinished: 299 s could delete the Job before the agent records its outcome (fix: use at least 300, or hookDeletePolicy: HookSucceeded`},
		{`job: {spec: {ttlSecondsAfterFinished: 0, template: {spec: {containers: [` + c + `]}}}}`, `job.spec.ttlSecondsAfterFinished: 0 s`},
	} {
		if _, err := parseWithCheck("{name: j, type: job, " + tc.block + "}"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %q", tc.block, err, tc.want)
		}
	}
}

func TestJobHookTimeoutLimit(t *testing.T) {
	h := spec.Hook{Name: "j", Type: "job", Timeout: 2 * MaxJobTimeout, Block: &Block{}}
	v := spec.DefaultLimits().Violations(h)
	if len(v) != 1 || !strings.Contains(v[0].Msg, "over the job limit (1h)") {
		t.Fatalf("violations %+v", v)
	}
}

// FuzzJobBlock: whatever a job block holds, parsing neither panics nor accepts a Job the
// Job controller would refuse, or a pod with more privileges; an execNewPod one is
// accepted only alone (no template), per cluster, with a kind it can read and a command.
func FuzzJobBlock(f *testing.F) {
	for _, s := range []string{
		`{spec: {template: {spec: {containers: [{name: c, image: x}]}}}}`,
		`{hookDeletePolicy: 'HookFailed,BeforeHookCreation', namespace: n, spec: {backoffLimit: 1, activeDeadlineSeconds: 30, template: {metadata: {annotations: {a: b}}, spec: {restartPolicy: OnFailure, containers: [{name: c, image: '{{name}}'}]}}}}`,
		`{spec: {template: {spec: {containers: [{name: c, image: x, resources: {limits: {cpu: 100m}}}]}}}}`,
		`{spec: null}`, `[]`, `{spec: {template: 3}}`,
		`{execNewPod: {workload: {kind: Deployment, name: web}, containerName: web, command: [rake, db:migrate], env: [{name: E, value: '{{name}}'}]}}`,
		`{spec: {backoffLimit: 0}, execNewPod: {workload: {kind: StatefulSet, name: '{{name}}'}, containerName: c, command: [x]}}`,
		`{execNewPod: {workload: {kind: Deployment, name: web}, containerName: web, command: [x]}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, block string) {
		if strings.ContainsAny(block, "\n\r") {
			return // one flow-style line, as parseWithCheck splices it
		}
		s, err := parseWithCheck("{name: j, type: job, job: " + block + "}")
		if err != nil {
			return
		}
		j, ok := s.Phases[0].Checks[0].Block.(*Block)
		if !ok {
			t.Fatalf("accepted without a job block: %q", block)
		}
		pod := j.Spec.Template.Spec
		if e := j.ExecNewPod; e != nil {
			if len(pod.Containers) != 0 || !s.Phases[0].Checks[0].PerCluster() || !slices.Contains(workloadKinds, e.Workload.Kind) || len(e.Command) == 0 || e.ContainerName == "" {
				t.Fatalf("accepted an execNewPod block it cannot run: %q → %+v", block, j)
			}
			return
		}
		if pod.ServiceAccountName != "" || pod.HostNetwork || pod.NodeName != "" {
			t.Fatalf("accepted a privileged Job: %q", block)
		}
		if len(pod.Containers) == 0 || (pod.RestartPolicy != corev1.RestartPolicyNever && pod.RestartPolicy != corev1.RestartPolicyOnFailure) || j.HookDeletePolicy == "" {
			t.Fatalf("accepted a Job the controller refuses: %q → %+v", block, j)
		}
	})
}
