// Copies the two files of Argo CD's UI source that define the extension API into
// argocd-src/ (git-ignored), from the argo-cd module of the Argo CD the tests run:
//   node test/argocd-src.mjs "$(go mod download -json github.com/argoproj/argo-cd/v3@v3.6.2 | jq -r .Dir)"
// (the browser test does this itself). shared/services/extensions-service.ts defines
// window.extensionsAPI and the props Argo CD passes; shared/models.ts its Application. The
// test shell runs extensions-service.ts as it is; the copy only gains one line that exports
// the module's registration functions (Argo CD keeps them private to window.extensionsAPI),
// so that test/contract.ts can type-check the extension's calls against them.
import * as fs from 'node:fs';
import * as path from 'node:path';

const mod = process.argv[2];
if (!mod) {
  console.error('usage: node test/argocd-src.mjs <argo-cd module dir>');
  process.exit(2);
}
const from = path.join(mod, 'ui', 'src', 'app', 'shared');
const to = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'argocd-src', 'shared');
fs.rmSync(path.dirname(to), {recursive: true, force: true});
fs.mkdirSync(path.join(to, 'services'), {recursive: true});
const nocheck = '// @ts-nocheck added by test/argocd-src.mjs: Argo CD does not compile with strict\n';
fs.writeFileSync(path.join(to, 'models.ts'), nocheck + fs.readFileSync(path.join(from, 'models.ts'), 'utf8'));
const svc = fs.readFileSync(path.join(from, 'services', 'extensions-service.ts'), 'utf8');
const names = ['registerAppViewExtension', 'registerStatusPanelExtension'];
for (const n of names) {
  if (!new RegExp(`^function ${n}\\(`, 'm').test(svc)) {
    console.error(`${from}/services/extensions-service.ts defines no function ${n}: Argo CD's extension API changed`);
    process.exit(1);
  }
}
fs.writeFileSync(path.join(to, 'services', 'extensions-service.ts'), `${nocheck}${svc}\n// added by cmp-phase's test/argocd-src.mjs for test/contract.ts\nexport {${names.join(', ')}};\n`);
console.log(`argocd-src/ from ${from}`);
