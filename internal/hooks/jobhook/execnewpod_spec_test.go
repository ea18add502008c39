package jobhook

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cmp-phase/cmp-phase/internal/hooks"
	"github.com/cmp-phase/cmp-phase/internal/spec"
)

// railsMigration is seed 004's Rails migration as an execNewPod pre-hook's job block (flow
// style): the rails Deployment's container, rake db:migrate, the cluster's env label.
const railsMigration = `{name: migrate, type: job, job: {hookDeletePolicy: HookSucceeded, spec: {backoffLimit: 1, activeDeadlineSeconds: 600}, ` +
	`execNewPod: {workload: {kind: Deployment, name: rails}, containerName: rails, command: [bin/rake, db:migrate], ` +
	`env: [{name: RAILS_ENV, value: '{{metadata.labels.env}}'}, {name: DB_PASSWORD, valueFrom: {secretKeyRef: {name: db, key: password}}}]}}}`

// TestExecNewPodReadsSeed004sShape: job.execNewPod (seed 004's ExecNewPodAction: a
// container name, a command, env) with the workload it names is read, with job.spec's
// Job-level fields and no template; a cluster field makes it per cluster; the plan
// carries it; each cluster's fill reaches it, the command as argv elements.
func TestExecNewPodReadsSeed004sShape(t *testing.T) {
	s, err := parseWithCheck(railsMigration)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Phases[0].Checks[0]
	j := h.Block.(*Block)
	e := j.ExecNewPod
	if e == nil || e.Workload != (WorkloadRef{Kind: KindDeployment, Name: "rails"}) || e.ContainerName != "rails" ||
		strings.Join(e.Command, " ") != "bin/rake db:migrate" || len(e.Env) != 2 || e.Env[1].ValueFrom.SecretKeyRef.Name != "db" {
		t.Fatalf("read %+v", e)
	}
	if *j.Spec.BackoffLimit != 1 || *j.Spec.ActiveDeadlineSeconds != 600 || len(j.Spec.Template.Spec.Containers) != 0 || !h.PerCluster() {
		t.Fatalf("job %+v, per cluster %v", j.Spec, h.PerCluster())
	}
	var back spec.Hook
	if b, err := json.Marshal(h); err != nil || json.Unmarshal(b, &back) != nil || back.Block.(*Block).ExecNewPod.Env[0].Value != "{{metadata.labels.env}}" {
		t.Fatalf("the plan does not carry it: %v", err)
	}
	vars := hooks.PhaseVars("guestbook", "argocd", "prod")
	vars["metadata.labels.env"] = "production"
	got, _, err := hooks.Template(h, vars, nil)
	if err != nil || got.Block.(*Block).ExecNewPod.Env[0].Value != "production" || e.Env[0].Value != "{{metadata.labels.env}}" {
		t.Fatalf("filled %+v, %v; declared %+v", got.Block, err, e.Env)
	}
	argv := spec.Hook{Name: "m", Type: "job", Block: &Block{ExecNewPod: &ExecNewPod{Command: []string{"rake", "{{name}}"}}}}
	if _, _, err := hooks.Template(argv, map[string]string{"name": "--x"}, nil); err == nil || !strings.Contains(err.Error(), "job.execNewPod.command[1]: cluster field {{name}}: value starts with -") {
		t.Fatalf("a cluster value made an option of the command: %v", err)
	}
}

// TestExecNewPodErrorsNameTheField: every way an execNewPod block is wrong is an error
// naming its field and the fix: one that would run per phase, one with a template too, an
// unknown kind or field, what is missing.
func TestExecNewPodErrorsNameTheField(t *testing.T) {
	const cmd = `command: [rake], env: [{name: E, value: '{{name}}'}]`
	for block, want := range map[string]string{
		`{execNewPod: {workload: {kind: Deployment, name: web}, containerName: web, command: [rake]}}`:                                                              `job.execNewPod: names a workload of the child's destination, so the hook must run once per cluster, in the child's cluster, and it runs once per phase (fix: template a cluster field anywhere in the job block`,
		`{execNewPod: {workload: {kind: Deployment, name: web}, containerName: web, ` + cmd + `}, spec: {template: {spec: {containers: [{name: c, image: x}]}}}}`:   `job.spec.template: execNewPod and spec.template are two pods for one Job: write one (fix: remove job.spec.template`,
		`{execNewPod: {workload: {kind: CronJob, name: web}, containerName: web, ` + cmd + `}}`:                                                                     `job.execNewPod.workload.kind: unknown value "CronJob" (fix: use one of: Deployment, StatefulSet, DaemonSet)`,
		`{execNewPod: {workload: {name: web}, containerName: web, ` + cmd + `}}`:                                                                                    `job.execNewPod.workload.kind: is required (fix: use one of: Deployment, StatefulSet, DaemonSet)`,
		`{execNewPod: {workload: {kind: Deployment}, containerName: web, ` + cmd + `}}`:                                                                             `job.execNewPod.workload.name: is required`,
		`{execNewPod: {workload: {kind: Deployment, name: Web_1}, containerName: web, ` + cmd + `}}`:                                                                `job.execNewPod.workload.name: invalid name "Web_1"`,
		`{execNewPod: {containerName: web, ` + cmd + `}}`:                                                                                                           `job.execNewPod.workload: is required (fix: name the workload`,
		`{execNewPod: {workload: {kind: Deployment, name: web}, ` + cmd + `}}`:                                                                                      `job.execNewPod.containerName: is required`,
		`{execNewPod: {workload: {kind: Deployment, name: web}, containerName: Web, ` + cmd + `}}`:                                                                  `job.execNewPod.containerName: invalid container name "Web"`,
		`{execNewPod: {workload: {kind: Deployment, name: '{{name}}'}, containerName: web}}`:                                                                        `job.execNewPod.command: is required (fix: write the program and its arguments`,
		`{execNewPod: {workload: {kind: Deployment, name: '{{name}}'}, containerName: web, command: []}}`:                                                           `job.execNewPod.command: is empty`,
		`{execNewPod: {workload: {kind: Deployment, name: '{{name}}'}, containerName: web, command: [rake], env: {E: x}}}`:                                          `job.execNewPod.env: must be a list, not a mapping`,
		`{execNewPod: {workload: {kind: Deployment, name: '{{name}}'}, containerName: web, command: [rake], env: [{name: E, valu: x}]}}`:                            `job.execNewPod.env[0].valu: unknown field`,
		`{execNewPod: {workload: {kind: Deployment, name: '{{name}}'}, containerName: web, command: [rake], env: [{value: x}]}}`:                                    `job.execNewPod.env[0].name: is required`,
		`{execNewPod: {workload: {kind: Deployment, name: web}, containerName: web, ` + cmd + `, volumes: [data]}}`:                                                 `job.execNewPod.volumes: unknown field "volumes" (fix: use one of: workload, containerName, command, env)`,
		`{execNewPod: {workload: {kind: Deployment, name: web}, containerName: web, ` + cmd + `, image: x}}`:                                                        `job.execNewPod.image: unknown field`,
		`{execNewPod: {workload: {kind: Deployment, name: web}, containerName: web, command: [rake], env: [{name: P, value: '{{name}}{{.secrets.db.password}}'}]}}`: `would write the secret's value into the Job`,
		`{spec: {ttlSecondsAfterFinished: 10}, execNewPod: {workload: {kind: Deployment, name: web}, containerName: web, ` + cmd + `}}`:                             `job.spec.ttlSecondsAfterFinished: 10 s could delete the Job`,
		`{spec: {backofLimit: 1}, execNewPod: {workload: {kind: Deployment, name: web}, containerName: web, ` + cmd + `}}`:                                          `job.spec.backofLimit: unknown field`,
		`{execNewPod: [web]}`: `job.execNewPod: must be a mapping, not a list`,
	} {
		if _, err := parseWithCheck("{name: j, type: job, job: " + block + "}"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s:\n got %v\nwant %q", block, err, want)
		}
	}
}

// TestExecNewPodForms: the kinds it names, templated names, job.namespace and a Job-level
// spec are accepted.
func TestExecNewPodForms(t *testing.T) {
	for _, block := range []string{
		`{execNewPod: {workload: {kind: StatefulSet, name: db}, containerName: db, command: [migrate], env: [{name: C, value: '{{name}}'}]}}`,
		`{namespace: 'apps-{{name}}', execNewPod: {workload: {kind: DaemonSet, name: agent}, containerName: agent, command: [check]}}`,
		`{execNewPod: {workload: {kind: Deployment, name: 'web-{{metadata.labels.env}}'}, containerName: '{{metadata.labels.container}}', command: [run]}, spec: {backoffLimit: 0, ttlSecondsAfterFinished: 300}}`,
	} {
		s, err := parseWithCheck("{name: j, type: job, job: " + block + "}")
		if err != nil {
			t.Errorf("%s: %v", block, err)
			continue
		}
		if h := s.Phases[0].Checks[0]; !h.PerCluster() || h.Block.(*Block).ExecNewPod == nil {
			t.Errorf("%s: read %+v", block, h.Block)
		}
	}
}
