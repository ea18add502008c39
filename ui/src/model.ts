// What the extension says about a rollout, derived from the status document only (pure).
import type {Doc, Phase} from './api';

export const RED = new Set(['Stopped', 'RollingBack', 'RolledBack', 'Failed', 'Errored']);

export function current(doc: Doc): Phase | undefined {
  return doc.phases?.find(p => p.name === doc.phase && !p.track) || doc.phases?.find(p => p.name === doc.phase);
}

// dur is a short duration: 4m05s, 1h02m, 12s.
export function dur(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) {
    return `${s}s`;
  }
  if (s < 3600) {
    return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  }
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

// when is a time to the second, UTC: 2026-11-28T04:39:32Z.
export function when(iso?: string): string {
  if (!iso) {
    return '';
  }
  const t = Date.parse(iso);
  return isNaN(t) ? iso : new Date(t).toISOString().replace(/\.\d+Z$/, 'Z');
}

// approvalText: "approvals 1 of 2 from sre", or who rejected.
export function approvalText(p: Phase): string {
  const a = p.approval;
  if (!a) {
    return '';
  }
  if (a.rejection) {
    return `rejected by ${a.rejection.by}`;
  }
  if (a.openedAt) {
    return `approved by ${p.approvedBy || (a.approvals || []).filter(x => x.counted).map(x => x.by).join(', ')}`;
  }
  if (a.afterChecks && !a.askedAt) {
    return 'approval after checks';
  }
  const from = a.groups && a.groups.length ? ` from ${a.groups.join(' or ')}` : '';
  return `approvals ${a.required - a.still} of ${a.required}${from}`;
}

// waiting says what a progressing rollout waits for, most pressing first (as the agent's
// waiting-for annotation orders it), at now.
export function waiting(doc: Doc, now: number): string {
  if (doc.status !== 'Progressing') {
    return doc.reason || '';
  }
  const p = current(doc);
  if (doc.paused) {
    const until = doc.paused.until ? ` until ${when(doc.paused.until)}` : '';
    return `paused${doc.paused.fleet ? ' fleet-wide' : ''} by ${doc.paused.by || 'someone'}${until}: ${doc.paused.reason}`;
  }
  if (doc.window) {
    const w = doc.window;
    const next = w.nextOpening ? `next opening ${when(w.nextOpening)} (in ${dur(Date.parse(w.nextOpening) - now)})` : 'no opening known';
    return `window ${w.windows.join(', ')} holds ${w.hold === 'all' ? 'the phase' : 'admissions'}; ${next}`;
  }
  if (!p) {
    return '';
  }
  const a = p.approval;
  if (a && a.still > 0 && !a.rejection && (a.askedAt || !a.afterChecks)) {
    return `waiting for ${approvalText(p)}`;
  }
  if (soaking(p, now)) {
    return `soak ends in ${dur(Date.parse(p.soakUntil!) - now)}`;
  }
  const syncing = (p.clusters || []).filter(c => c.status === 'Waiting').length;
  if (p.admitted < p.members || syncing > 0) {
    return `sync: ${syncing} of ${p.admitted} admitted children syncing`;
  }
  const running = (p.hooks || []).filter(h => h.status === 'Running');
  if (running.length) {
    return `check running: ${running.map(h => h.key).join(', ')}`;
  }
  return '';
}

// command is the cmp-phase command that does what a button would.
export function command(verb: string, doc: Doc, namespace: string, phase?: string): string {
  const args = ['cmp-phase', verb, doc.rollout];
  if (phase) {
    args.push(phase);
  }
  args.push('--reason', '"<why>"');
  if (namespace !== 'argocd') {
    args.push('-n', namespace);
  }
  return args.join(' ');
}

// offers are the actions that make sense now: [verb, phase].
export function offers(doc: Doc): [string, string?][] {
  const out: [string, string?][] = [];
  const p = current(doc);
  if (doc.status === 'Progressing' && p) {
    const a = p.approval;
    if (a && a.still > 0 && !a.rejection && !a.openedAt) {
      out.push(['approve', p.name], ['reject', p.name]);
    }
    if (soaking(p, Date.now())) {
      out.push(['promote', p.name]);
    }
  }
  if (doc.paused && !doc.paused.fleet) {
    out.push(['resume']);
  } else if (doc.status === 'Progressing') {
    out.push(['pause']);
  }
  return out;
}

export function short(rev?: string): string {
  return (rev || '').slice(0, 12);
}

// soaking: the phase's soak has not ended at now.
export function soaking(p: Phase, now: number): boolean {
  return p.status === 'Soaking' && !!p.soakUntil && Date.parse(p.soakUntil) > now;
}
