// Colours close to Argo CD's own status colours.
export const colors = {
  red: '#e96d76',
  green: '#18be94',
  blue: '#0dadea',
  yellow: '#f4c030',
  grey: '#ccd6dd',
  muted: '#6d7f8b',
  text: '#363c4a',
};

export function statusColor(s?: string): string {
  switch (s) {
    case 'Done':
    case 'Succeeded':
    case 'Completed':
    case 'Healthy':
    case 'Synced':
      return colors.green;
    case 'Failed':
    case 'Errored':
    case 'Stopped':
    case 'RollingBack':
    case 'RolledBack':
    case 'Degraded':
    case 'Missing':
      return colors.red;
    case 'Waiting':
    case 'Running':
    case 'Admitting':
    case 'Soaking':
    case 'Progressing':
    case 'OutOfSync':
      return colors.blue;
    case 'Inconclusive':
    case 'Suspended':
      return colors.yellow;
  }
  return colors.muted;
}
