// The status panel item on the parent: where the rollout is and what it waits for. Argo CD
// renders a status panel extension's component as it is inside its status panel row
// (application-status-panel.tsx), so the item brings Argo CD's own item structure: an
// application-status-panel__item with its label, value and name lines.
import React from './react';
import type {StatusPanelProps} from './argocd';
import {RED, current, waiting} from './model';
import {isParent, rolloutOf} from './parent';
import {useNow, usePoll} from './poll';
import {toneClass} from './style';

function Item(props: {children?: any; testid: string; data?: Record<string, string | number>; onClick?: () => void}) {
  const data: Record<string, string | number> = {};
  for (const [k, v] of Object.entries(props.data || {})) {
    data[`data-${k}`] = v;
  }
  return (
    <div className='application-status-panel__item cmp-phase' data-testid={props.testid} {...data}
      style={{cursor: props.onClick ? 'pointer' : 'default', lineHeight: 1.5}} onClick={props.onClick}>
      <label className='cmp-phase-label'>Rollout</label>
      {props.children}
    </div>
  );
}

function Polled(props: StatusPanelProps) {
  const {data, error} = usePoll(props.application, 5000);
  const now = useNow();
  if (error && !data) {
    return <Item testid='cmp-phase-panel' data={{error: 'true'}}><div className='cmp-phase-muted'>{error}</div></Item>;
  }
  if (!data) {
    return <Item testid='cmp-phase-panel' data={{loading: 'true'}}><div className='cmp-phase-muted'>loading…</div></Item>;
  }
  const d = data.doc;
  const p = current(d);
  const red = RED.has(d.status);
  const wait = waiting(d, now);
  return (
    <Item testid='cmp-phase-panel' data={{generation: d.generation}} onClick={props.openFlyout}>
      <div className='application-status-panel__item-value' style={{fontSize: '1.4em', alignItems: 'baseline', gap: 6}}>
        <span data-testid='cmp-phase-status' className={toneClass(d.status)} style={{fontWeight: 600}}>
          {red ? '● ' : ''}
          {d.status}
        </span>
        {d.phase && (
          <span className='cmp-phase-strong' style={{fontSize: '0.7em'}}>
            {'at '}
            <b data-testid='cmp-phase-phase'>{d.phase}</b>
          </span>
        )}
      </div>
      {p && (
        <div className='application-status-panel__item-name'>
          <span data-testid='cmp-phase-admitted'>{p.admitted}/{p.members} admitted</span>
        </div>
      )}
      {wait && (
        <div data-testid='cmp-phase-waiting' className={`application-status-panel__item-name ${red ? 'cmp-phase-bad' : ''}`}>
          {wait}
        </div>
      )}
      <div className='application-status-panel__item-name cmp-phase-muted' style={{fontSize: '0.9em'}}>
        {d.rollout} · generation <span data-testid='cmp-phase-generation'>{d.generation}</span>
      </div>
    </Item>
  );
}

// StatusPanel is the item: nothing on an Application that is no parent (Argo CD v3.6 has no
// shouldDisplay for status panel items, so the item itself decides), a note on a parent the
// agent has not annotated yet, and the rollout on the others.
export function StatusPanel(props: StatusPanelProps) {
  if (!isParent(props.application)) {
    return null;
  }
  if (!rolloutOf(props.application)) {
    return <Item testid='cmp-phase-panel' data={{pending: 'true'}}><div className='cmp-phase-muted'>no rollout yet: the agent has not annotated this parent</div></Item>;
  }
  return <Polled {...props} />;
}
