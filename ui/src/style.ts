// The extension's look follows Argo CD's theme. Argo CD puts the user's theme on an ancestor
// as the class theme-light or theme-dark (shared/components/layout/layout.tsx; "auto" is
// resolved to one of them) and compiles its colours from argo-ui's $themes map into rules
// under those classes (argo-ui src/styles/theme.scss: background-1/2, text-1/2, border,
// light-argo-gray-2), with the status colours of shared/components/colors.ts in both
// themes. Argo CD exposes no CSS variables, so the extension declares its own, one set per
// theme class with those values, and every colour it draws is one of them: nothing is
// hard-coded in a component. Without a theme class (outside Argo CD) the light values hold.

const sheet = `
.cmp-phase {
  --cmp-phase-text: #495763;        /* text-1: $argo-color-gray-7 */
  --cmp-phase-text-strong: #363c4a; /* text-2: $argo-color-gray-8 */
  --cmp-phase-muted: #6d7f8b;       /* $argo-color-gray-6, Argo CD's status panel labels */
  --cmp-phase-bg: #ffffff;          /* background-2 */
  --cmp-phase-bg-sunken: #eff3f5;   /* light-argo-gray-2 */
  --cmp-phase-border: #dee6eb;      /* border: $argo-color-gray-3 */
  --cmp-phase-ok: #18be94;          /* ARGO_SUCCESS_COLOR */
  --cmp-phase-bad: #e96d76;         /* ARGO_FAILED_COLOR */
  --cmp-phase-bad-tint: rgba(233, 109, 118, 0.14);
  --cmp-phase-run: #0dadea;         /* ARGO_RUNNING_COLOR */
  --cmp-phase-warn: #f4c030;        /* ARGO_WARNING_COLOR */
  --cmp-phase-suspended: #766f94;   /* ARGO_SUSPENDED_COLOR */
  --cmp-phase-unknown: #ccd6dd;     /* ARGO_GRAY4_COLOR */
  color: var(--cmp-phase-text);
}
.theme-dark .cmp-phase {
  --cmp-phase-text: #dee6eb;        /* text-1: $argo-color-gray-3 */
  --cmp-phase-text-strong: #ffffff; /* text-2: $white-color */
  --cmp-phase-muted: #8fa4b1;       /* $argo-color-gray-5 (gray-6 is too dark on background-2) */
  --cmp-phase-bg: #303237;          /* background-2: $dark-theme-background-2 */
  --cmp-phase-bg-sunken: #28292a;   /* light-argo-gray-2: $dark-theme-sliding-panel */
  --cmp-phase-border: #495763;      /* border: $argo-color-gray-7 */
}
.cmp-phase-view { background: var(--cmp-phase-bg); }
.cmp-phase-strong { color: var(--cmp-phase-text-strong); }
.cmp-phase-muted { color: var(--cmp-phase-muted); }
.cmp-phase-label { color: var(--cmp-phase-muted); font-size: 12px; font-weight: 600; min-height: 18px; text-transform: uppercase; }
.cmp-phase-ok { color: var(--cmp-phase-ok); }
.cmp-phase-bad { color: var(--cmp-phase-bad); }
.cmp-phase-run { color: var(--cmp-phase-run); }
.cmp-phase-warn { color: var(--cmp-phase-warn); }
.cmp-phase-suspended { color: var(--cmp-phase-suspended); }
.cmp-phase-unknown { color: var(--cmp-phase-muted); }
.cmp-phase-header { padding: 10px; border-left: 4px solid var(--cmp-phase-unknown); background: var(--cmp-phase-bg-sunken); }
.cmp-phase-header.cmp-phase-bar-ok { border-left-color: var(--cmp-phase-ok); }
.cmp-phase-header.cmp-phase-bar-bad { border-left-color: var(--cmp-phase-bad); background: var(--cmp-phase-bad-tint); }
.cmp-phase-header.cmp-phase-bar-run { border-left-color: var(--cmp-phase-run); }
.cmp-phase-header.cmp-phase-bar-warn { border-left-color: var(--cmp-phase-warn); }
.cmp-phase-section { margin: 14px 0 6px; font-size: 14px; font-weight: 600; color: var(--cmp-phase-text-strong); }
.cmp-phase-table { border-collapse: collapse; width: 100%; }
.cmp-phase-table td, .cmp-phase-row { border-bottom: 1px solid var(--cmp-phase-border); }
.cmp-phase-table td { padding: 2px 8px; font-size: 13px; vertical-align: top; }
.cmp-phase-group { margin-bottom: 10px; border: 1px solid var(--cmp-phase-border); border-radius: 4px; }
.cmp-phase-group.cmp-phase-current { border-color: var(--cmp-phase-run); }
.cmp-phase-group-head { padding: 4px 8px; background: var(--cmp-phase-bg-sunken); cursor: pointer; }
.cmp-phase input { background: var(--cmp-phase-bg); color: var(--cmp-phase-text); border: 1px solid var(--cmp-phase-border); border-radius: 3px; padding: 4px; }
.cmp-phase code { color: var(--cmp-phase-text-strong); }
`;

// installStyle puts the stylesheet in the page once (every component calls it; the first wins).
export function installStyle(doc: Document = document): void {
  if (doc.getElementById('cmp-phase-style')) {
    return;
  }
  const el = doc.createElement('style');
  el.id = 'cmp-phase-style';
  el.textContent = sheet;
  doc.head.appendChild(el);
}

// tone is the colour class of a status: Argo CD's colours for sync and health
// (shared/components/colors.ts COLORS.sync and COLORS.health) and the rollout's own.
export type Tone = 'ok' | 'bad' | 'run' | 'warn' | 'suspended' | 'unknown';

export function tone(s?: string): Tone {
  switch (s) {
    case 'Done':
    case 'Succeeded':
    case 'Completed':
    case 'Healthy':
    case 'Synced':
      return 'ok';
    case 'Failed':
    case 'Errored':
    case 'Stopped':
    case 'RollingBack':
    case 'RolledBack':
    case 'Degraded':
      return 'bad';
    case 'Waiting':
    case 'Running':
    case 'Admitting':
    case 'Soaking':
    case 'Progressing':
      return 'run';
    case 'OutOfSync':
    case 'Missing':
    case 'Inconclusive':
      return 'warn';
    case 'Suspended':
      return 'suspended';
  }
  return 'unknown';
}

// toneClass is the class that colours text in a status's tone.
export function toneClass(s?: string): string {
  return `cmp-phase-${tone(s)}`;
}
