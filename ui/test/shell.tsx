// A stand-in for Argo CD's UI shell, for the browser test only (Argo CD's UI bundle cannot
// be built here: its argo-ui dependency is only on GitHub). It provides what Argo CD's UI
// gives an extension: window.React (React 19, as Argo CD 3.x) and window.extensionsAPI with
// Argo CD's registration signatures (ui/src/app/shared/services/extensions-service.ts);
// then it renders what the extension registered with the real Application the page
// fetched from argocd-server's API.
import * as React from 'react';
import {createRoot} from 'react-dom/client';

const w = window as any;
w.React = React;

const registered = {statusPanel: [] as any[], appView: [] as any[], resource: [] as any[], system: [] as any[]};
w.extensionsAPI = {
  registerStatusPanelExtension(component: any, title: string, id: string, flyout?: any) {
    registered.statusPanel.push({component, title, id, flyout});
  },
  registerAppViewExtension(component: any, title: string, icon: string) {
    registered.appView.push({component, title, icon});
  },
  registerResourceExtension(component: any, group: string, kind: string, tabTitle: string, opts?: {icon: string}) {
    registered.resource.push({component, group, kind, title: tabTitle, icon: opts?.icon});
  },
  registerSystemLevelExtension(component: any, title: string, path: string, icon: string) {
    registered.system.push({component, title, path, icon});
  },
};
w.cmpPhaseShell = {registered};

// render mounts every registered status panel item and app view for app, as Argo CD's
// application details page would.
w.cmpPhaseShell.render = (app: any) => {
  const el = document.getElementById('root')!;
  const root = w.cmpPhaseShell.root || (w.cmpPhaseShell.root = createRoot(el));
  const tree = {nodes: [], orphanedNodes: [], hosts: []};
  root.render(
    React.createElement(
      'div',
      {},
      React.createElement(
        'div',
        {className: 'shell-status-panel', style: {display: 'flex', gap: 24, padding: 12, borderBottom: '1px solid #ccd6dd', fontFamily: 'sans-serif'}},
        ...registered.statusPanel.map(ext =>
          React.createElement(
            'div',
            {key: ext.id, 'data-shell-panel': ext.id, style: {minWidth: 320}},
            React.createElement('div', {style: {fontSize: 11, color: '#6d7f8b', textTransform: 'uppercase'}}, ext.title),
            React.createElement(ext.component, {application: app, openFlyout: () => {}}),
          ),
        ),
      ),
      ...registered.appView.map(ext =>
        React.createElement('div', {key: ext.title, 'data-shell-view': ext.title, style: {fontFamily: 'sans-serif'}}, React.createElement(ext.component, {application: app, tree})),
      ),
    ),
  );
};

// synthetic renders the extension over a made-up rollout of n children (the last phase
// holds all but 50), answering the extension's own requests in the page: a measure of the
// view at fleet size, not of the agent. It resolves with the milliseconds until the grid
// was in the page and how many child rows the page holds.
w.cmpPhaseShell.synthetic = (n: number): Promise<{ms: number; rows: number; phaseRows: number}> => {
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
  const app = {metadata: {name: 'synthetic', namespace: 'argocd', annotations: {'cmp-phase.io/rollout': 'synthetic'}}, spec: {project: 'default'}, status: {}};
  const t0 = performance.now();
  w.cmpPhaseShell.render(app);
  return new Promise(resolve => {
    const check = () => {
      const win = document.querySelector(`[data-testid=cmp-phase-window][data-rows="${n - 50}"]`);
      if (!win) {
        requestAnimationFrame(check);
        return;
      }
      resolve({ms: performance.now() - t0, rows: document.querySelectorAll('[data-testid=cmp-phase-row]').length, phaseRows: win.querySelectorAll('[data-testid=cmp-phase-row]').length});
    };
    check();
  });
};
