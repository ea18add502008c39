// The Rollout view of the parent: the whole rollout, refreshed every few seconds.
import React from './react';
import {Doc, Verb, act} from './api';
import type {App, AppViewProps} from './argocd';
import {ChildHealth, Grid} from './grid';
import {RED, command, current, dur, offers, waiting, short, when} from './model';
import {isParent, rolloutOf} from './parent';
import {useChildren, useNow, usePoll} from './poll';
import {tone, toneClass} from './style';

// healthOf is the children's sync and health: from argocd-server's list of the rollout's
// children, else from the parent's resource list (which has no health for Applications
// unless the installation configured a health check for them).
function healthOf(app: App, listed: Map<string, ChildHealth>): Map<string, ChildHealth> {
  const m = new Map<string, ChildHealth>();
  for (const r of app.status?.resources || []) {
    if (r.kind === 'Application' && r.name) {
      m.set(r.name, {sync: r.status, health: r.health?.status});
    }
  }
  listed.forEach((v, k) => m.set(k, {sync: v.sync || m.get(k)?.sync, health: v.health || m.get(k)?.health}));
  return m;
}

function Header(props: {doc: Doc; now: number}) {
  const d = props.doc;
  const p = current(d);
  const red = RED.has(d.status);
  const w = waiting(d, props.now);
  return (
    <div data-testid='cmp-phase-header' data-generation={d.generation} data-status={d.status} data-phase={d.phase || ''}
      className={`cmp-phase-header cmp-phase-bar-${tone(d.status)}`}>
      <div style={{fontSize: 16}} className='cmp-phase-strong'>
        <b>{d.rollout}</b> <span className={toneClass(d.status)} style={{fontWeight: 600}}>{d.status}</span>
        {d.phase && <span> at <b>{d.phase}</b></span>}
        {p && <span> · {p.admitted}/{p.members} admitted</span>}
      </div>
      {w && <div data-testid='cmp-phase-view-waiting' className={red ? 'cmp-phase-bad' : ''}>{w}</div>}
      <div className='cmp-phase-muted' style={{fontSize: 12}}>
        generation {d.generation} · revision {short(d.revision)} {d.revision && d.commits?.[d.revision] ? `(commit ${short(d.commits[d.revision])})` : ''} {d.deployed ? ` · deployed ${short(d.deployed)}` : ''}
        {d.startedAt ? ` · started ${when(d.startedAt)}` : ''} {d.failureBudget ? ` · failures ${d.failureBudget.failures}/${d.failureBudget.maxFailures}` : ''}
      </div>
      {(d.rejected || []).map((r, i) => <div key={i} className='cmp-phase-bad' style={{fontSize: 12}}>refused edit: {r}</div>)}
    </div>
  );
}

function Actions(props: {app: App; doc: Doc; actions: boolean; namespace: string; done: () => void}) {
  const [reason, setReason] = React.useState('');
  const [msg, setMsg] = React.useState('');
  const list = offers(props.doc);
  if (!list.length) {
    return null;
  }
  if (!props.actions) {
    return (
      <div data-testid='cmp-phase-commands'>
        <div className='cmp-phase-section'>Steer it (actions are off here: run the command)</div>
        {list.map(([verb, phase]) => {
          const cmd = command(verb, props.doc, props.namespace, phase);
          return (
            <div key={verb} style={{fontFamily: 'monospace', fontSize: 12, margin: '2px 0'}}>
              <code data-testid='cmp-phase-command' data-verb={verb}>{cmd}</code>{' '}
              <button className='argo-button argo-button--base-o' onClick={() => navigator.clipboard?.writeText(cmd)} style={{fontSize: 11}}>copy</button>
            </div>
          );
        })}
      </div>
    );
  }
  const run = (verb: Verb, phase?: string) => {
    if (!reason.trim()) {
      setMsg('say why first (recorded in the rollout history)');
      return;
    }
    setMsg(`${verb}…`);
    act(props.app, verb, {phase, reason}).then(
      () => {
        setMsg(`${verb} recorded; the agent acts on it`);
        props.done();
      },
      e => setMsg(String(e.message || e)),
    );
  };
  return (
    <div data-testid='cmp-phase-actions'>
      <div className='cmp-phase-section'>Steer it</div>
      <input data-testid='cmp-phase-reason' placeholder='why (required)' value={reason} onChange={e => setReason((e.target as HTMLInputElement).value)}
        style={{width: 260, padding: 4, marginRight: 8}} />
      {list.map(([verb, phase]) => (
        <button key={verb} data-testid={`cmp-phase-action-${verb}`} className='argo-button argo-button--base' style={{marginRight: 6}}
          onClick={() => run(verb as Verb, phase)}>
          {verb}{phase ? ` ${phase}` : ''}
        </button>
      ))}
      <div data-testid='cmp-phase-action-result' className='cmp-phase-muted' style={{fontSize: 12, marginTop: 4}}>{msg}</div>
    </div>
  );
}

function Hooks(props: {doc: Doc; now: number}) {
  const rows = (props.doc.phases || []).flatMap(p => (p.hooks || []).map(h => ({p, h})));
  if (!rows.length) {
    return null;
  }
  return (
    <div>
      <div className='cmp-phase-section'>Hooks and checks</div>
      <table className='cmp-phase-table'>
        <tbody>
          {rows.map(({p, h}) => (
            <tr key={p.name + (p.track || '') + h.key} data-testid='cmp-phase-hook' data-key={h.key} data-status={h.status}>
              <td>{p.name}</td>
              <td>{h.key}</td>
              <td className={toneClass(h.status)}>{h.status}</td>
              <td>{h.duration ? h.duration.replace(/(\d+\.\d)\d+/, '$1') : h.status === 'Running' && h.startedAt ? `for ${dur(props.now - Date.parse(h.startedAt))}` : ''}</td>
              <td>{h.attempts ? `${h.attempts} attempt(s)` : ''}</td>
              <td>{h.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Approvals(props: {doc: Doc}) {
  const rows = (props.doc.phases || []).flatMap(p => {
    const a = p.approval;
    if (!a) {
      return [];
    }
    const answers = [...(a.approvals || []).map(x => ({x, what: x.counted ? 'counted' : 'ignored'})), ...(a.rejection ? [{x: a.rejection, what: 'rejected'}] : [])];
    return answers.map(({x, what}, i) => ({p, x, what, i}));
  });
  if (!rows.length) {
    return null;
  }
  return (
    <div>
      <div className='cmp-phase-section'>Approvals</div>
      <table className='cmp-phase-table'>
        <tbody>
          {rows.map(({p, x, what, i}) => (
            <tr key={p.name + i} data-testid='cmp-phase-answer' data-by={x.by} data-counted={String(x.counted)}>
              <td>{p.name}</td>
              <td>{x.by}</td>
              <td className={what === 'counted' ? 'cmp-phase-ok' : what === 'rejected' ? 'cmp-phase-bad' : 'cmp-phase-muted'}>{what}</td>
              <td>{when(x.at)}</td>
              <td>{x.note || [x.groups?.length ? `groups ${x.groups.join(',')}` : '', x.reason ? `"${x.reason}"` : ''].filter(Boolean).join('; ')}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function History(props: {doc: Doc}) {
  const h = props.doc.history || [];
  if (!h.length) {
    return null;
  }
  const shown = h.slice(-15);
  return (
    <div>
      <div className='cmp-phase-section'>History (latest {shown.length} of {h.length})</div>
      {shown.map((e, i) => (
        <div key={i} data-testid='cmp-phase-history-line' style={{fontFamily: 'monospace', fontSize: 12}}>
          {when(e.at)} <b>{e.event}</b> {e.message}
        </div>
      ))}
    </div>
  );
}

function Polled(props: {application: App}) {
  const {data, error, refresh} = usePoll(props.application, 3000);
  const children = useChildren(data?.doc.rollout || '', 10000);
  const now = useNow();
  if (error && !data) {
    return <div data-testid='cmp-phase-view' data-error='true' className='cmp-phase-muted'>cmp-phase: {error}</div>;
  }
  if (!data) {
    return <div data-testid='cmp-phase-view' data-loading='true'>loading the rollout…</div>;
  }
  return (
    <div data-testid='cmp-phase-view' data-generation={data.doc.generation}>
      <Header doc={data.doc} now={now} />
      <Actions app={props.application} doc={data.doc} actions={data.actions} namespace={data.namespace} done={refresh} />
      <div className='cmp-phase-section'>Phases × children</div>
      <Grid doc={data.doc} health={healthOf(props.application, children)} />
      <Hooks doc={data.doc} now={now} />
      <Approvals doc={data.doc} />
      <History doc={data.doc} />
      {error && <div className='cmp-phase-muted' style={{fontSize: 12}}>last refresh failed: {error}</div>}
    </div>
  );
}

// RolloutView is the Rollout app view and the status panel item's flyout: the whole rollout
// of a parent. Argo CD offers the view only where shouldDisplay (isParent) holds; the
// flyout opens from the item, which only parents show.
export function RolloutView(props: AppViewProps) {
  const app = props.application;
  return (
    <div className='cmp-phase cmp-phase-view' data-testid='cmp-phase-root' style={{padding: 16, maxWidth: 1200}}>
      {!isParent(app) ? (
        <div data-testid='cmp-phase-view' data-none='true'>This Application does not render through the cmp-phase plugin.</div>
      ) : !rolloutOf(app) ? (
        <div data-testid='cmp-phase-view' data-pending='true' className='cmp-phase-muted'>No rollout yet: the agent has not annotated this parent.</div>
      ) : (
        <Polled application={app} />
      )}
    </div>
  );
}
