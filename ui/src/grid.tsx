// The phases × clusters grid: one group per phase, its admitted children as rows (version
// or commit, sync, health, and the reason a child waits). Rows are windowed, so a phase of
// 1,000 children renders only the rows in sight.
import React from './react';
import type {Doc, Phase} from './api';
import {approvalText, short, soaking, when} from './model';
import {toneClass} from './style';

export interface ChildHealth {
  sync?: string;
  health?: string;
}

const ROW = 26; // px, fixed: what windowing relies on
const VISIBLE = 14; // rows in sight per phase before it scrolls
const OVERSCAN = 6;

interface Row {
  name: string;
  status: string;
  reason?: string;
}

function phaseRows(p: Phase, filter: string): Row[] {
  const rows: Row[] = (p.clusters || []).map(c => ({name: c.name, status: c.status, reason: c.reason}));
  return filter ? rows.filter(r => r.name.includes(filter) || r.status.toLowerCase() === filter.toLowerCase()) : rows;
}

function Cell(props: {children?: any; width: number | string; tone?: string; title?: string}) {
  return (
    <span title={props.title} className={props.tone} style={{display: 'inline-block', width: props.width, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap', verticalAlign: 'top'}}>
      {props.children}
    </span>
  );
}

function Windowed(props: {rows: Row[]; phase: string; render: (r: Row) => any}) {
  const [top, setTop] = React.useState(0);
  const n = props.rows.length;
  if (n <= VISIBLE + OVERSCAN) {
    return <div>{props.rows.map(props.render)}</div>;
  }
  const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
  const last = Math.min(n, Math.ceil((top + VISIBLE * ROW) / ROW) + OVERSCAN);
  return (
    <div data-testid='cmp-phase-window' data-rows={n} style={{height: VISIBLE * ROW, overflowY: 'auto', position: 'relative'}}
      onScroll={e => setTop((e.target as HTMLElement).scrollTop)}>
      <div style={{height: n * ROW, position: 'relative'}}>
        <div style={{position: 'absolute', top: first * ROW, left: 0, right: 0}}>{props.rows.slice(first, last).map(props.render)}</div>
      </div>
    </div>
  );
}

export function Grid(props: {doc: Doc; health: Map<string, ChildHealth>}) {
  const {doc, health} = props;
  const [filter, setFilter] = React.useState('');
  const [open, setOpen] = React.useState<Record<string, boolean>>({});
  const revisionOf = new Map((doc.children || []).map(c => [c.name, c]));
  const row = (r: Row) => {
    const child = revisionOf.get(r.name);
    const h = health.get(r.name) || {};
    return (
      <div key={r.name} data-testid='cmp-phase-row' data-cluster={r.name} data-status={r.status} className='cmp-phase-row'
        style={{height: ROW, lineHeight: `${ROW}px`, fontSize: 13}}>
        <Cell width='28%' title={r.name}>{r.name}</Cell>
        <Cell width='12%' tone={toneClass(r.status)}>{r.status}</Cell>
        <Cell width='16%' title={child ? `revision ${child.revision}${child.commit ? ' commit ' + child.commit : ''}` : ''}>
          <span data-testid='cmp-phase-version'>{child ? (child.commit ? `@${short(child.commit).slice(0, 8)}` : short(child.revision)) : ''}</span>
        </Cell>
        <Cell width='10%' tone={toneClass(h.sync)}>{h.sync || '—'}</Cell>
        <Cell width='10%' tone={toneClass(h.health)}>{h.health || '—'}</Cell>
        <Cell width='24%' title={r.reason}>{r.status === 'Done' ? '' : r.reason || ''}</Cell>
      </div>
    );
  };
  return (
    <div data-testid='cmp-phase-grid'>
      <input data-testid='cmp-phase-filter' placeholder='filter children by name or status' value={filter}
        onChange={e => setFilter((e.target as HTMLInputElement).value)} style={{width: 320, margin: '4px 0 8px'}} />
      {(doc.phases || []).map((p, i) => {
        const key = `${p.name}@${p.track || ''}`;
        const rows = phaseRows(p, filter);
        const isCurrent = p.name === doc.phase;
        const shown = open[key] ?? (isCurrent || rows.length <= 50);
        return (
          <div key={key + i} data-testid='cmp-phase-phase-group' data-phase={p.name} data-status={p.status} data-admitted={p.admitted} data-members={p.members}
            className={`cmp-phase-group${isCurrent ? ' cmp-phase-current' : ''}`}>
            <div className='cmp-phase-group-head' onClick={() => setOpen({...open, [key]: !shown})}>
              <b className='cmp-phase-strong'>{shown ? '▾' : '▸'} {p.name}{p.track ? `@${p.track}` : ''}</b>
              <span className={toneClass(p.status)} style={{marginLeft: 8}}>{p.status}</span>
              <span style={{marginLeft: 8}}>{p.admitted}/{p.members} admitted</span>
              {p.approval && <span className='cmp-phase-muted' style={{marginLeft: 8}}>{approvalText(p)}</span>}
              {soaking(p, Date.now()) && <span className='cmp-phase-muted' style={{marginLeft: 8}}>soak until {when(p.soakUntil)}</span>}
            </div>
            {shown && (
              <div style={{padding: '0 8px'}}>
                <div className='cmp-phase-muted' style={{fontSize: 11, height: 20, lineHeight: '20px'}}>
                  <Cell width='28%'>CHILD</Cell><Cell width='12%'>IN PHASE</Cell><Cell width='16%'>VERSION</Cell><Cell width='10%'>SYNC</Cell><Cell width='10%'>HEALTH</Cell><Cell width='24%'>WAITS FOR</Cell>
                </div>
                <Windowed rows={rows} phase={p.name} render={row} />
                {p.members > p.admitted && (
                  <div className='cmp-phase-muted' style={{fontSize: 12, padding: '2px 0'}}>{p.members - p.admitted} member(s) not admitted yet</div>
                )}
              </div>
            )}
          </div>
        );
      })}
    </div>
  );
}
