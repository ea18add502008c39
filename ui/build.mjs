// Builds the extension into dist/extension-cmp-phase.js: one IIFE, React taken from the
// window.React Argo CD provides (src/react.ts), nothing else bundled but our code.
// Also builds dist/test-shell.js, the stand-in for Argo CD's UI shell the browser test
// loads (it bundles React 19 from npm, which Argo CD's UI would provide); it is not shipped.
import * as esbuild from 'esbuild';

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

await esbuild.build({
  ...common,
  entryPoints: ['test/shell.tsx'],
  outfile: 'dist/test-shell.js',
  define: {'process.env.NODE_ENV': '"production"'},
  minify: true,
});
