// The extension against Argo CD's own definition of its extension API (argocd-src/, copied
// from the argo-cd module of the Argo CD the tests run by test/argocd-src.mjs). tsc fails
// here when a registration's parameters, or the props Argo CD passes, no longer fit what the
// extension declares in src/argocd.ts and calls in src/index.tsx.
import {registerAppViewExtension, registerStatusPanelExtension} from 'argocd-ui/shared/services/extensions-service';
import type {
  AppViewExtension,
  AppViewExtensionComponent,
  StatusPanelExtensionComponent,
  StatusPanelExtensionFlyoutComponent,
} from 'argocd-ui/shared/services/extensions-service';
import type {Application} from 'argocd-ui/shared/models';
import type {ExtensionsAPI} from '../src/argocd';
import {Flyout, Panel, View, shouldDisplay} from '../src/index';

// Argo CD's functions accept every call register() makes through ExtensionsAPI: each
// parameter the extension passes fits Argo CD's, and Argo CD asks for no more.
export const argocd: ExtensionsAPI = {registerAppViewExtension, registerStatusPanelExtension};

// What the extension registers takes the props Argo CD passes.
export const panel: StatusPanelExtensionComponent = Panel;
export const flyout: StatusPanelExtensionFlyoutComponent = Flyout;
export const view: AppViewExtensionComponent = View;
export const display: AppViewExtension['shouldDisplay'] = shouldDisplay;

// Argo CD's Application is typed through, not any (test/argo-ui.d.ts supplies its metadata),
// so the checks above compare real types: these two must not compile.
// @ts-expect-error a name is a string in Argo CD's Application
export const typedMetadata: Application['metadata'] = {name: 5};
// @ts-expect-error a project is a string
export const typedSpec: Partial<Application['spec']> = {project: 5};
