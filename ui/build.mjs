// Builds the extension into dist/extension-cmp-phase.js: one IIFE, React taken from the
// window.React Argo CD provides (src/react.ts), nothing else bundled but our code.
// With argocd-src/ present (test/argocd-src.mjs), also builds dist/test-shell.js, the
// stand-in for Argo CD's application page the browser test loads: Argo CD's own
// extensions-service.ts and React 19 from npm, as Argo CD's UI provides them; not shipped.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';

const common = {
  bundle: true,
  format: 'iife',
  target: 'es2020',
  jsx: 'transform',
  jsxFactory: 'React.createElement',
  jsxFragment: 'React.Fragment',
  logLevel: 'info',
  legalComments: 'none',
};

await esbuild.build({
  ...common,
  entryPoints: ['src/index.tsx'],
  outfile: 'dist/extension-cmp-phase.js',
  minify: true,
  // Fail the build if anything tries to bundle React: it must come from window.React.
  plugins: [{
    name: 'no-bundled-react',
    setup(build) {
      build.onResolve({filter: /^react(-dom)?(\/.*)?$/}, args => ({
        errors: [{text: `${args.path} imported by ${args.importer}: use src/react.ts (window.React), never a bundled React`}],
      }));
    },
  }],
});

if (!fs.existsSync('argocd-src/shared/services/extensions-service.ts')) {
  console.log('no argocd-src/: the test shell is not built (node test/argocd-src.mjs <argo-cd module dir>)');
  process.exit(0);
}

await esbuild.build({
  ...common,
  entryPoints: ['test/shell.tsx'],
  tsconfig: 'test/tsconfig.json',
  outfile: 'dist/test-shell.js',
  define: {'process.env.NODE_ENV': '"production"'},
  minify: true,
});
