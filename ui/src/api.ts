import type {App} from './argocd';

// The status document (internal/status.Doc, what `cmp-phase status -o json` prints) as the
// agent's endpoint serves it through argocd-server's proxy extension, and the actions.

export interface Answer {
  by: string;
  groups?: string[];
  at: string;
  reason?: string;
  counted: boolean;
  note?: string;
}

export interface Approval {
  required: number;
  groups?: string[];
  afterChecks?: boolean;
  askedAt?: string;
  openedAt?: string;
  still: number;
  approvals?: Answer[];
  rejection?: Answer;
}

export interface Cluster {
  name: string;
  status: string;
  reason?: string;
  admittedAt?: string;
  settledAt?: string;
}

export interface Hook {
  key: string;
  status: string;
  attempts?: number;
  message?: string;
  startedAt?: string;
  finishedAt?: string;
  duration?: string;
}

export interface Phase {
  name: string;
  status: string;
  members: number;
  admitted: number;
  soakUntil?: string;
  approvedBy?: string;
  clusters?: Cluster[];
  hooks?: Hook[];
  startedAt?: string;
  endedAt?: string;
  approval?: Approval;
  track?: string;
}

export interface Pause {
  reason: string;
  by?: string;
  since: string;
  until?: string;
  fleet?: boolean;
}

export interface Window {
  phase: string;
  windows: string[];
  hold: string;
  children?: string[];
  since: string;
  nextOpening?: string;
}

export interface Child {
  name: string;
  revision: string;
  commit?: string;
}

export interface Entry {
  at: string;
  event: string;
  message: string;
}

export interface Doc {
  rollout: string;
  generation: number;
  deployed?: string;
  revision?: string;
  status: string;
  reason?: string;
  phase?: string;
  paused?: Pause;
  skipped?: string[];
  phases?: Phase[];
  rejected?: string[];
  commits?: Record<string, string>;
  children?: Child[];
  startedAt?: string;
  endedAt?: string;
  history?: Entry[];
  failureBudget?: {failures: number; maxFailures: number};
  window?: Window;
  tracks?: {name: string; phase?: string; status: string; reason?: string}[];
}

// Fetched is one answer of the endpoint: the document, whether actions are on, and the
// namespace of the rollout's ConfigMaps (for the CLI commands shown).
export interface Fetched {
  doc: Doc;
  actions: boolean;
  namespace: string;
}


// root is Argo CD's base path (its <base href>, e.g. /argo-cd/ with --rootpath), "" at /.
function root(): string {
  const href = document.querySelector('base')?.getAttribute('href') || '/';
  return href.replace(/\/+$/, '');
}

const base = () => `${root()}/extensions/cmp-phase/api/v1`;

function headers(app: App): Record<string, string> {
  return {
    'Argocd-Application-Name': `${app.metadata.namespace || 'argocd'}:${app.metadata.name || ''}`,
    'Argocd-Project-Name': app.spec.project || 'default',
  };
}

export class HTTPError extends Error {
  constructor(public code: number, message: string) {
    super(message);
  }
}

async function failure(res: Response): Promise<HTTPError> {
  let msg = res.statusText;
  try {
    const body = await res.json();
    if (body && typeof body.error === 'string') {
      msg = body.error;
    }
  } catch {
    // not JSON (argocd-server's own refusals are text)
  }
  return new HTTPError(res.status, `${res.status}: ${msg}`);
}

export async function fetchStatus(app: App, signal?: AbortSignal): Promise<Fetched> {
  const res = await fetch(`${base()}/status`, {headers: headers(app), credentials: 'same-origin', signal});
  if (!res.ok) {
    throw await failure(res);
  }
  return {
    doc: (await res.json()) as Doc,
    actions: res.headers.get('Cmp-Phase-Actions') === 'on',
    namespace: res.headers.get('Cmp-Phase-Namespace') || 'argocd',
  };
}

export type Verb = 'approve' | 'reject' | 'promote' | 'pause' | 'resume';

export async function act(app: App, verb: Verb, body: {phase?: string; reason: string}): Promise<void> {
  const res = await fetch(`${base()}/actions/${verb}`, {
    method: 'POST',
    headers: {...headers(app), 'Content-Type': 'application/json'},
    credentials: 'same-origin',
    body: JSON.stringify(body),
  });
  if (!res.ok) {
    throw await failure(res);
  }
}

// ChildState is a child Application's sync and health as argocd-server reports them.
export interface ChildState {
  sync?: string;
  health?: string;
}

// fetchChildren lists the rollout's child Applications through argocd-server's API (the
// user's own session: they see the children they may get), by the rollout label.
export async function fetchChildren(rollout: string, signal?: AbortSignal): Promise<Map<string, ChildState>> {
  const sel = encodeURIComponent(`cmp-phase.io/rollout=${rollout}`);
  const res = await fetch(`${root()}/api/v1/applications?selector=${sel}`, {credentials: 'same-origin', signal});
  if (!res.ok) {
    throw await failure(res);
  }
  const body = await res.json();
  const out = new Map<string, ChildState>();
  for (const a of body.items || []) {
    out.set(a.metadata?.name, {sync: a.status?.sync?.status, health: a.status?.health?.status});
  }
  return out;
}
