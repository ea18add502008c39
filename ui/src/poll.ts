// usePoll fetches the rollout's status now and every interval while mounted.
import React from './react';
import type {App} from './argocd';
import {ChildState, Fetched, fetchChildren, fetchStatus} from './api';

export interface Polled {
  data?: Fetched;
  error?: string;
  refresh: () => void;
}

export function usePoll(app: App, intervalMs: number): Polled {
  const [data, setData] = React.useState<Fetched | undefined>();
  const [error, setError] = React.useState<string | undefined>();
  const [tick, setTick] = React.useState(0);
  const key = `${app.metadata.namespace}:${app.metadata.name}:${app.spec.project}`;
  React.useEffect(() => {
    const ctl = new AbortController();
    fetchStatus(app, ctl.signal).then(
      d => {
        setData(d);
        setError(undefined);
      },
      e => {
        if (!ctl.signal.aborted) {
          setError(String(e.message || e));
        }
      },
    );
    const t = setTimeout(() => setTick(n => n + 1), intervalMs);
    return () => {
      ctl.abort();
      clearTimeout(t);
    };
  }, [key, tick, intervalMs]);
  return {data, error, refresh: () => setTick(n => n + 1)};
}

// useNow is the time, moving every second (soak countdowns).
export function useNow(): number {
  const [now, setNow] = React.useState(Date.now());
  React.useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return now;
}

// useChildren lists the rollout's children's sync and health now and every intervalMs
// (empty until the first answer, or when the user may not list them).
export function useChildren(rollout: string, intervalMs: number): Map<string, ChildState> {
  const [m, setM] = React.useState<Map<string, ChildState>>(new Map());
  const [tick, setTick] = React.useState(0);
  React.useEffect(() => {
    const ctl = new AbortController();
    if (rollout) {
      fetchChildren(rollout, ctl.signal).then(setM, () => undefined);
    }
    const t = setTimeout(() => setTick(n => n + 1), intervalMs);
    return () => {
      ctl.abort();
      clearTimeout(t);
    };
  }, [rollout, tick, intervalMs]);
  return m;
}
