// A stand-in for Argo CD's application page, for the browser test only: Argo CD's UI bundle
// cannot be built here (its argo-ui dependency is only on GitHub, not the npm registry).
//
// What an extension meets is Argo CD's own code where it can be: the registration API is
// Argo CD's extensions-service.ts itself (argocd-src/, copied by test/argocd-src.mjs from
// the argo-cd module of the Argo CD the test runs), which defines window.extensionsAPI as
// Argo CD does; window.React and window.ReactDOM are set as Argo CD's index.tsx sets them.
// What is ours is the page that renders what was registered, and it renders it as Argo CD
// v3.6 does (the browser test checks these call sites against Argo CD's source):
//   application-status-panel.tsx: statusExtensions.map(ext => <ext.component key={ext.title}
//     application={application} openFlyout={() => showExtension && showExtension(ext.id)} />)
//     inside <div className='application-status-panel row'>;
//   application-details.tsx: the view icons of (state.extensions || []).filter(ext =>
//     ext.shouldDisplay(application)), the selected one as <extension.component
//     application={application} tree={tree} /> (a view whose shouldDisplay fails goes back to
//     the tree), and the flyout as <activeStatusExt.flyout application={application}
//     tree={tree} />; it re-reads the extensions on their 'appView' and 'statusPanel' events;
//   layout.tsx: everything under <div className={'theme-' + theme}>.
// Types come from Argo CD's definitions (tsc -p test), so a prop Argo CD stops passing, or
// passes differently, fails the build.
import * as React from 'react';
import * as ReactDOM from 'react-dom';
import * as JSXRuntime from 'react/jsx-runtime';
import {createRoot, Root} from 'react-dom/client';
import {ExtensionsService} from 'argocd-ui/shared/services/extensions-service';
import type {AppViewExtension, StatusPanelExtension} from 'argocd-ui/shared/services/extensions-service';
import type {Application, ApplicationTree} from 'argocd-ui/shared/models';

const w = window as any;
w.React = React;
w.ReactDOM = ReactDOM;
w.ReactJSXRuntime = JSXRuntime;

const extensions = new ExtensionsService();

interface PageProps {
  application: Application;
  tree: ApplicationTree;
  theme: string;
  view: string;
}

function StatusPanel(props: {application: Application; showExtension: (id: string) => any}) {
  const {application, showExtension} = props;
  const statusExtensions: StatusPanelExtension[] = extensions.getStatusPanelExtensions();
  return (
    <div className='application-status-panel row' data-shell='status-panel'>
      <div className='application-status-panel__item' data-shell='argocd-item'>
        <label className='shell-label'>APP HEALTH</label>
        <div className='application-status-panel__item-value'>{application.status?.health?.status || 'Unknown'}</div>
      </div>
      {statusExtensions && statusExtensions.map(ext => <ext.component key={ext.title} application={application} openFlyout={() => showExtension && showExtension(ext.id)} />)}
    </div>
  );
}

function Page(props: PageProps) {
  const {application, tree} = props;
  const [, setVersion] = React.useState(0);
  const [view, setView] = React.useState(props.view);
  const [selectedExtension, setSelectedExtension] = React.useState('');
  React.useEffect(() => {
    const update = () => setVersion(v => v + 1);
    extensions.addEventListener('appView', update);
    extensions.addEventListener('statusPanel', update);
    return () => {
      extensions.removeEventListener('appView', update);
      extensions.removeEventListener('statusPanel', update);
    };
  }, []);
  const appViews: AppViewExtension[] = extensions.getAppViewExtensions();
  const extensionsMap: {[title: string]: AppViewExtension} = {};
  appViews.forEach(ext => (extensionsMap[ext.title] = ext));
  const statusExtensionsMap: {[id: string]: StatusPanelExtension} = {};
  extensions.getStatusPanelExtensions().forEach(ext => (statusExtensionsMap[ext.id] = ext));
  let shown = view;
  if (extensionsMap[shown] != null && !extensionsMap[shown].shouldDisplay(application)) {
    shown = 'tree'; // application-details.tsx: navigation.goto('.', {view: Tree})
  }
  const extension = extensionsMap[shown];
  const activeStatusExt = statusExtensionsMap[selectedExtension];
  return (
    <div className={'theme-' + props.theme}>
      <div className='shell-layout' data-shell-app={application.metadata.name}>
        <div className='shell-banner'>Test shell standing in for Argo CD's UI (its bundle cannot be built here) · Argo CD's extension API, argocd-server, the extension and the data are real</div>
        <div className='shell-toolbar'>
          {['tree', 'list'].map(v => (
            <i key={v} className={`fa fa-${v} shell-view-icon${shown === v ? ' selected' : ''}`} data-shell-view-icon={v} title={v} onClick={() => setView(v)}>
              {v}
            </i>
          ))}
          {(appViews || [])
            .filter(ext => ext.shouldDisplay(application))
            .map(ext => (
              <i key={ext.title} className={`fa ${ext.icon} shell-view-icon${shown === ext.title ? ' selected' : ''}`} data-shell-view-icon={ext.title} title={ext.title}
                onClick={() => setView(ext.title)}>
                {ext.title}
              </i>
            ))}
        </div>
        <StatusPanel application={application} showExtension={setSelectedExtension} />
        <div className='shell-content' data-shell-view={shown}>
          {extension != null ? <extension.component application={application} tree={tree} /> : <div className='shell-placeholder'>Argo CD's {shown} view</div>}
        </div>
        {selectedExtension !== '' && activeStatusExt?.flyout && (
          <div className='shell-flyout' data-shell-flyout={selectedExtension}>
            <button className='shell-close' data-shell-flyout-close='' onClick={() => setSelectedExtension('')}>close</button>
            <activeStatusExt.flyout application={application} tree={tree} />
          </div>
        )}
      </div>
    </div>
  );
}

let root: Root | undefined;

// render shows app with its resource tree as Argo CD's application page would.
function render(application: Application, tree: ApplicationTree, opts: {theme?: string; view?: string} = {}) {
  root = root || createRoot(document.getElementById('root')!);
  w.cmpPhaseShell.app = application;
  root.render(<Page application={application} tree={tree} theme={opts.theme || 'light'} view={opts.view || 'Rollout'} />);
}

// registered is what Argo CD's registry holds, and what it would show for app.
function registered(app?: Application) {
  return {
    statusPanel: extensions.getStatusPanelExtensions().map(e => ({title: e.title, id: e.id, flyout: !!e.flyout})),
    appView: extensions.getAppViewExtensions().map(e => ({title: e.title, icon: e.icon, shown: app ? e.shouldDisplay(app) : undefined})),
  };
}

// synthetic renders the extension over a made-up rollout of n children (the last phase
// holds all but 50), answering the extension's own requests in the page: a measure of the
// view at fleet size, not of the agent. It resolves with the milliseconds until the grid
// was in the page and how many child rows the page holds.
function synthetic(n: number, theme = 'light'): Promise<{ms: number; rows: number; phaseRows: number}> {
  const names = (phase: string, k: number) => Array.from({length: k}, (_, i) => `synthetic-${phase}-${String(i).padStart(4, '0')}`);
  const sizes: [string, number][] = [['dev', 10], ['staging', 40], ['prod', n - 50]];
  const at = new Date().toISOString();
  const doc = {
    rollout: 'synthetic', generation: 42, deployed: 'a'.repeat(16), revision: 'b'.repeat(16), status: 'Progressing', phase: 'prod',
    phases: sizes.map(([name, k], i) => ({
      name, status: i < 2 ? 'Succeeded' : 'Admitting', members: k, admitted: k,
      clusters: names(name, k).map((c, j) => ({name: c, status: i < 2 || j % 3 ? 'Done' : 'Waiting', reason: j % 3 ? '' : 'not synced yet', admittedAt: at})),
    })),
    children: sizes.flatMap(([name, k]) => names(name, k).map(c => ({name: c, revision: 'b'.repeat(16), commit: 'c'.repeat(40)}))),
  };
  const items = doc.children.map(c => ({metadata: {name: c.name}, status: {sync: {status: 'Synced'}, health: {status: 'Healthy'}}}));
  const realFetch = window.fetch.bind(window);
  window.fetch = (input: any, init?: any) => {
    const url = String(input);
    if (url.startsWith('/extensions/cmp-phase/api/v1/status')) {
      return Promise.resolve(new Response(JSON.stringify(doc), {headers: {'Content-Type': 'application/json', 'Cmp-Phase-Actions': 'off', 'Cmp-Phase-Namespace': 'argocd'}}));
    }
    if (url.startsWith('/api/v1/applications?')) {
      return Promise.resolve(new Response(JSON.stringify({items}), {headers: {'Content-Type': 'application/json'}}));
    }
    return realFetch(input, init);
  };
  const app = {
    metadata: {name: 'synthetic', namespace: 'argocd', annotations: {'cmp-phase.io/rollout': 'synthetic'}},
    spec: {project: 'default', source: {repoURL: 'https://git.example/fleet', path: 'synthetic', plugin: {name: 'cmp-phase-v1', env: []}}, sources: [], destination: {}},
    status: {resources: [], history: [], health: {status: 'Healthy', message: ''}},
  } as unknown as Application;
  const t0 = performance.now();
  render(app, {nodes: [], orphanedNodes: [], hosts: []}, {theme});
  return new Promise(resolve => {
    const check = () => {
      const win = document.querySelector(`[data-shell-view] [data-testid=cmp-phase-window][data-rows="${n - 50}"]`);
      if (!win) {
        requestAnimationFrame(check);
        return;
      }
      resolve({
        ms: performance.now() - t0,
        rows: document.querySelectorAll('[data-shell-view] [data-testid=cmp-phase-row]').length,
        phaseRows: win.querySelectorAll('[data-testid=cmp-phase-row]').length,
      });
    };
    check();
  });
}

w.cmpPhaseShell = {render, registered, synthetic, app: undefined as Application | undefined};
