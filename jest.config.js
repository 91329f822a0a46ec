/** Two projects: fast pure unit tests, and tests that talk to real Postgres and Redis. */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  },
];
const moduleNameMapper = {
  '^@app/domain(|/.*)$': '<rootDir>/libs/domain/src$1',
  '^@app/contracts(|/.*)$': '<rootDir>/libs/contracts/src$1',
};
const common = { rootDir: __dirname, transform: { '^.+\\.ts$': swc }, moduleNameMapper, testEnvironment: 'node' };

module.exports = {
  testTimeout: 30000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/translator-agent/**/*.spec.ts'] },
    {
      ...common,
      displayName: 'api',
      testMatch: ['<rootDir>/apps/api/test/**/*.spec.ts'],
      globalSetup: '<rootDir>/apps/api/test/support/global-setup.mjs',
      globalTeardown: '<rootDir>/apps/api/test/support/global-teardown.mjs',
      setupFiles: ['<rootDir>/apps/api/test/support/env.ts'],
    },
  ],
};
