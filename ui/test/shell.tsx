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
