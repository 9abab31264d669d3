/**
 * paw's folder layers, highest first: a folder may import its own files and any folder below
 * it, never one above. `npm run lint` runs this (`depcruise src`); docs/architecture.md says
 * what each layer is for, in the same order (test/architecture.test.ts checks both).
 */
const LAYERS = [
  'cli',
  'ops',
  'scheduler',
  'job-kinds',
  'queue',
  'outcomes',
  'definitions',
  'simulator',
  'platform',
  'redis',
  'config',
  'shared',
];

const folder = (name) => `^src/${name}/`;
const anyOf = (names) => `^src/(${names.join('|')})/`;

/**
 * The platform's default tables (routes, vocabulary, field aliases) are data, and the settings
 * schema takes its defaults from them: any layer may read them, and they import nothing.
 */
const PLATFORM_DEFAULTS = '^src/platform/defaults/';

module.exports = {
  forbidden: [
    ...LAYERS.slice(1).map((name, index) => ({
      name: `layer-${name}`,
      comment: `src/${name}/ sits below ${LAYERS.slice(0, index + 1).join(', ')}: it may not import them (layers only run down)`,
      severity: 'error',
      from: { path: folder(name) },
      to: { path: anyOf(LAYERS.slice(0, index + 1)), pathNot: PLATFORM_DEFAULTS },
    })),
    {
      name: 'platform-defaults-are-data',
      comment: 'src/platform/defaults/ holds data only: it imports nothing of paw but itself',
      severity: 'error',
      from: { path: PLATFORM_DEFAULTS },
      to: { path: '^src/', pathNot: PLATFORM_DEFAULTS },
    },
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
