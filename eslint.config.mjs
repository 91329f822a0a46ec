import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** The Node globals the repository's plain JavaScript (bench, scripts, test setup) uses; a new one is added here. */
const NODE_GLOBALS = Object.fromEntries(
  [
    'AbortController',
    'AbortSignal',
    'Buffer',
    'URL',
    'clearInterval',
    'clearTimeout',
    'console',
    'fetch',
    'performance',
    'process',
    'setImmediate',
    'setInterval',
    'setTimeout',
  ].map((name) => [name, 'readonly']),
);

/** What the console page (a browser module) uses of the browser. */
const BROWSER_GLOBALS = Object.fromEntries(
  [
    'EventSource',
    'URLSearchParams',
    'clearInterval',
    'clearTimeout',
    'document',
    'fetch',
    'sessionStorage',
    'setInterval',
    'setTimeout',
  ].map((name) => [name, 'readonly']),
);

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.data/**',
      '.scratch/**',
      '**/*.repository.types.ts',
      '**/*.js',
      // The console page's script is linted: it is product code, served to browsers as it is written.
      '!apps/api/src/modules/console/public/*.js',
      'apps/api/test/typed-client/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.mjs'],
    languageOptions: { sourceType: 'module', globals: NODE_GLOBALS },
  },
  {
    files: ['apps/api/src/modules/console/public/*.js'],
    languageOptions: { sourceType: 'module', globals: BROWSER_GLOBALS },
    rules: { eqeqeq: ['error', 'always'] },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { ...NODE_GLOBALS, require: 'readonly', module: 'writable', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
        emitDecoratorMetadata: true,
        experimentalDecorators: true,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always'],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.mjs', '**/*.cjs'],
    rules: {
      eqeqeq: ['error', 'always'],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // A controller translates HTTP and calls its service; repositories are the services' (docs/decisions.md "Layers").
    files: ['apps/**/*.controller.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['*.repository', '*.repository.types'],
              message: 'A controller calls a service, never a repository (docs/decisions.md "Layers").',
            },
          ],
        },
      ],
    },
  },
  {
    // libs/domain is pure: no framework, no infrastructure, nothing of the apps (STYLE.md, docs/decisions.md "Layers").
    files: ['libs/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@nestjs/*',
                'typeorm',
                'typeorm/*',
                'pg',
                'pg/*',
                'bullmq',
                'ioredis',
                'livekit-server-sdk',
                '@livekit/*',
                'stripe',
                'express',
              ],
              message: 'libs/domain must stay pure: no framework or infrastructure (docs/decisions.md "Layers").',
            },
            {
              group: ['**/apps/**'],
              message: 'libs/domain imports nothing of the apps (docs/decisions.md "Layers").',
            },
          ],
        },
      ],
    },
  },
);
