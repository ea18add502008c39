// React as Argo CD's UI provides it (window.React): the extension never bundles its own,
// so its hooks run in the same React as the component tree that renders it.
import type * as ReactTypes from 'react';

const React = (window as unknown as {React: typeof ReactTypes}).React;

export default React;
