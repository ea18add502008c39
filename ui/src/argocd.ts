// What the extension takes from Argo CD's UI: window.extensionsAPI's two registrations and
// the props Argo CD passes to what they register, as Argo CD v3.6 defines them in
// ui/src/app/shared/services/extensions-service.ts (registerAppViewExtension,
// registerStatusPanelExtension, AppViewComponentProps, StatusPanelComponentProps,
// StatusPanelFlyoutProps). Only the fields the extension reads are spelled out; every
// field of Argo CD's Application is optional there, so it is here.
// The browser test checks these against that file of the Argo CD it runs (ui/test/contract.ts).

export interface PluginSource {
  plugin?: {name?: string};
}

// App is the part of Argo CD's Application (shared/models.ts) the extension reads.
export interface App {
  metadata: {name?: string; namespace?: string; annotations?: {[name: string]: string}};
  spec: {project: string; source?: PluginSource; sources?: PluginSource[]};
  status?: {resources?: {kind?: string; name?: string; status?: string; health?: {status?: string}}[]};
}

// Props of a status panel item: Argo CD renders it in the parent's status panel row
// (application-status-panel.tsx) with these two props.
export interface StatusPanelProps {
  application: App;
  openFlyout: () => any;
}

// Props of an app view and of a status panel item's flyout (application-details.tsx).
export interface AppViewProps {
  application: App;
  tree: unknown;
}

type Component<P> = (props: P) => any;

export interface ExtensionsAPI {
  registerAppViewExtension: (component: Component<AppViewProps>, title: string, icon: string, shouldDisplay?: (app: App) => boolean) => void;
  registerStatusPanelExtension: (component: Component<StatusPanelProps>, title: string, id: string, flyout?: Component<AppViewProps>) => void;
}
