/**
 * paw's folder layers, highest first: a folder may import its own files and any folder below
 * it, never one above. `npm run lint` runs this (`depcruise src`); docs/architecture.md says
 * what each layer is for. The leaf folders at the bottom import nothing of paw's but each other
 * in the order given.
 */
const LAYERS = [
  'cli',
  'demo',
  'app',
  'ops',
  'doctor',
  'scheduler',
  'worker',
  'processors',
  'processing',
  'queue',
  'outcomes',
  'definitions',
  'simulator',
  'platform',
  'redis',
  'config',
  'platform-defaults',
  'cron',
  'lifecycle',
  'terminal',
  'log',
  'yaml',
  'fs',
  'net',
  'time',
  'text',
  'version',
  'errors',
];

const folder = (name) => `^src/${name}/`;
const anyOf = (names) => `^src/(${names.join('|')})/`;

module.exports = {
  forbidden: [
    ...LAYERS.slice(1).map((name, index) => ({
      name: `layer-${name}`,
      comment: `src/${name}/ sits below ${LAYERS.slice(0, index + 1).join(', ')}: it may not import them (layers only run down)`,
      severity: 'error',
      from: { path: folder(name) },
      to: { path: anyOf(LAYERS.slice(0, index + 1)) },
    })),
    {
      name: 'layer-unknown-folder',
      comment: 'every folder of src/ has a place in the layers of .dependency-cruiser.cjs',
      severity: 'error',
      from: { path: '^src/', pathNot: anyOf(LAYERS) },
      to: {},
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    exclude: { path: '^(test|bench|node_modules)/' },
  },
};
