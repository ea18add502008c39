// Registers the cmp-phase extension with Argo CD's UI (window.extensionsAPI): a status panel
// item (its flyout the whole rollout) and a Rollout view, both on parents only — an
// Application the agent annotated with its rollout.
import React from './react';
import {rolloutOf} from './api';
import {StatusPanel} from './panel';
import {RolloutView, ViewApp} from './view';

function OnParents(inner: (props: any) => any) {
  return (props: any) => (props.application && rolloutOf(props.application) ? inner(props) : null);
}

const Panel = OnParents(props => <StatusPanel application={props.application} openFlyout={props.openFlyout} />);
const Flyout = OnParents(props => <RolloutView application={props.application as ViewApp} />);
const View = (props: any) =>
  props.application && rolloutOf(props.application) ? (
    <RolloutView application={props.application} />
  ) : (
    <div style={{padding: 16}}>This Application renders no cmp-phase rollout.</div>
  );

((window: any) => {
  const api = window.extensionsAPI;
  if (!api) {
    console.error('cmp-phase extension: window.extensionsAPI is missing (is this Argo CD 2.6 or later?)');
    return;
  }
  api.registerStatusPanelExtension(Panel, 'Rollout', 'cmp-phase', Flyout);
  api.registerAppViewExtension(View, 'Rollout', 'fa-layer-group');
})(window);
