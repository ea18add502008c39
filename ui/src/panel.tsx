// The status panel item on the parent: where the rollout is and what it waits for.
import React from './react';
import {AppRef} from './api';
import {RED, current, waiting} from './model';
import {useNow, usePoll} from './poll';
import {colors} from './style';

export function StatusPanel(props: {application: AppRef; openFlyout?: () => void}) {
  const {data, error} = usePoll(props.application, 5000);
  const now = useNow();
  if (error && !data) {
    return (
      <div data-testid='cmp-phase-panel' data-error='true' style={{color: colors.muted}}>
        rollout: {error}
      </div>
    );
  }
  if (!data) {
    return <div data-testid='cmp-phase-panel' data-loading='true'>rollout: loading…</div>;
  }
  const d = data.doc;
  const p = current(d);
  const red = RED.has(d.status);
  const wait = waiting(d, now);
  return (
    <div data-testid='cmp-phase-panel' data-generation={d.generation} style={{cursor: props.openFlyout ? 'pointer' : 'default', lineHeight: 1.5}}
      onClick={() => props.openFlyout && props.openFlyout()}>
      <div>
        <span data-testid='cmp-phase-status' style={{color: red ? colors.red : d.status === 'Completed' ? colors.green : colors.blue, fontWeight: 600}}>
          {red ? '● ' : ''}
          {d.status}
        </span>
        {d.phase && (
          <span>
            {' at '}
            <b data-testid='cmp-phase-phase'>{d.phase}</b>
          </span>
        )}
        {p && (
          <span data-testid='cmp-phase-admitted' style={{marginLeft: 6}}>
            {p.admitted}/{p.members} admitted
          </span>
        )}
      </div>
      {wait && (
        <div data-testid='cmp-phase-waiting' style={{color: red ? colors.red : colors.text, fontSize: '0.9em'}}>
          {wait}
        </div>
      )}
      <div style={{color: colors.muted, fontSize: '0.8em'}}>
        {d.rollout} · generation <span data-testid='cmp-phase-generation'>{d.generation}</span>
      </div>
    </div>
  );
}
