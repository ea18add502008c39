// Registers the cmp-phase extension with Argo CD's UI (window.extensionsAPI, Argo CD v3.6's
// extensions-service.ts): a status panel item whose flyout is the whole rollout, and a
// Rollout app view that Argo CD offers only where shouldDisplay holds — on parents, whose
// source names the cmp-phase plugin.
import type {ExtensionsAPI} from './argocd';
import {isParent} from './parent';
import {StatusPanel} from './panel';
import {installStyle} from './style';
import {RolloutView} from './view';

// What Argo CD gets; the browser test type-checks each against Argo CD's own definitions.
export const Panel = StatusPanel;
export const Flyout = RolloutView;
export const View = RolloutView;
export const shouldDisplay = isParent;

export function register(api: ExtensionsAPI): void {
  api.registerStatusPanelExtension(Panel, 'Rollout', 'cmp-phase', Flyout);
  api.registerAppViewExtension(View, 'Rollout', 'fa-layer-group', shouldDisplay);
}

((window: any) => {
  // argocd-server concatenates every extension file under its extensions directory into
  // /extensions.js; a file found twice (a ConfigMap volume mid-update holds two copies for a
  // moment) must not register twice.
  if (window.cmpPhaseExtensionRegistered) {
    return;
  }
  const api = window.extensionsAPI;
  if (!api) {
    console.error('cmp-phase extension: window.extensionsAPI is missing (is this Argo CD 2.6 or later?)');
    return;
  }
  window.cmpPhaseExtensionRegistered = true;
  installStyle();
  register(api);
})(window);
