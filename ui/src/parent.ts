// Which Applications the extension belongs to: parents, whose source (or one of whose
// sources) names the cmp-phase plugin. internal/contract.PluginName spells the name; the
// browser test checks the two agree.
import type {App} from './argocd';

export const PLUGIN_NAME = 'cmp-phase-v1';

// isParent: app renders through the plugin (spec.source or any of spec.sources).
export function isParent(app?: App | null): boolean {
  const spec = app?.spec;
  if (!spec) {
    return false;
  }
  return [spec.source, ...(spec.sources || [])].some(s => s?.plugin?.name === PLUGIN_NAME);
}

// rolloutOf is the rollout the agent says the parent renders (its annotation), or "":
// a parent the agent has not annotated yet has no rollout to show.
export function rolloutOf(app: App): string {
  return app.metadata.annotations?.['cmp-phase.io/rollout'] || '';
}
