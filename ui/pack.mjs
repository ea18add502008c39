// Packs the built extension (node build.mjs first) as the release ships it, into dist/:
// - extension-cmp-phase.tar.gz: resources/extension-cmp-phase.js/extension-cmp-phase.js, the layout
//   Argo CD's argocd-extension-installer takes (for installs that download it);
// - extension-cmp-phase-configmap.yaml: the ConfigMap cmp-phase-extension-ui holding the
//   same file under the key extension-cmp-phase.js, which manifests/extension mounts into
//   argocd-server's extensions directory (nothing is downloaded when argocd-server starts);
// - extension-cmp-phase_checksums.txt: their SHA-256 sums, as sha256sum writes them.
import {execFileSync} from 'node:child_process';
import {createHash} from 'node:crypto';
import * as fs from 'node:fs';
import {gzipSync} from 'node:zlib';

const js = fs.readFileSync('dist/extension-cmp-phase.js', 'utf8');
// A ConfigMap holds at most 1 MiB in all; keep room for the object around the file.
if (Buffer.byteLength(js) > 900 * 1024) {
  throw new Error(`dist/extension-cmp-phase.js is ${Buffer.byteLength(js)} bytes: too large for the ConfigMap (1 MiB in all)`);
}

fs.rmSync('dist/pack', {recursive: true, force: true});
fs.mkdirSync('dist/pack/resources/extension-cmp-phase.js', {recursive: true});
fs.copyFileSync('dist/extension-cmp-phase.js', 'dist/pack/resources/extension-cmp-phase.js/extension-cmp-phase.js');
// Reproducible: fixed owners and times, and zlib's gzip header carries no time.
const tar = execFileSync('tar', ['-C', 'dist/pack', '--owner=0', '--group=0', '--numeric-owner', '--mtime=@0', '--sort=name', '-cf', '-', 'resources'], {maxBuffer: 64 << 20});
fs.writeFileSync('dist/extension-cmp-phase.tar.gz', gzipSync(tar, {level: 9}));

// The value is a JSON string (YAML reads JSON): whatever the bundle holds, it stays one
// scalar, byte for byte.
const configMap = `# The cmp-phase UI extension for argocd-server (docs/ui.md). manifests/extension mounts this
# ConfigMap, optionally, into argocd-server's extensions directory: apply it in argocd's namespace.
apiVersion: v1
kind: ConfigMap
metadata:
  name: cmp-phase-extension-ui
  labels:
    app.kubernetes.io/part-of: argocd
    app.kubernetes.io/name: cmp-phase-extension-ui
data:
  extension-cmp-phase.js: ${JSON.stringify(js)}
`;
fs.writeFileSync('dist/extension-cmp-phase-configmap.yaml', configMap);

const sums = ['extension-cmp-phase.tar.gz', 'extension-cmp-phase-configmap.yaml']
  .map(f => `${createHash('sha256').update(fs.readFileSync(`dist/${f}`)).digest('hex')}  ${f}\n`)
  .join('');
fs.writeFileSync('dist/extension-cmp-phase_checksums.txt', sums);
console.log(`dist/: extension-cmp-phase.tar.gz, extension-cmp-phase-configmap.yaml, extension-cmp-phase_checksums.txt`);
