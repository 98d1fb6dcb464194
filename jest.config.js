/**
 * Two projects: unit tests beside the code (no broker), integration tests against a real broker. ts-jest only
 * transpiles (tsconfig.test.json sets isolatedModules): `npm test` type-checks the whole tree once with tsc first,
 * which is faster than ts-jest checking the types of every file each worker loads.
 */
const tsJest = ['ts-jest', { tsconfig: 'tsconfig.test.json' }];

module.exports = {
  // jest 30 reads testTimeout only at the top level, not per project.
  testTimeout: 120000,
  // jest's default on 2 cores is one worker; most integration tests wait on the broker, timeouts or other processes
  // more than they compute, and two workers nearly halve the suite with the same results.
  maxWorkers: 2,
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      roots: ['<rootDir>/src', '<rootDir>/examples', '<rootDir>/ui'],
      testMatch: ['**/*.test.ts'],
      transform: { '^.+\\.ts$': tsJest },
    },
    {
      displayName: 'integration',
      testEnvironment: 'node',
      roots: ['<rootDir>/integration'],
      testMatch: ['**/*.test.ts'],
      transform: { '^.+\\.ts$': tsJest },
      globalSetup: '<rootDir>/integration/support/global-setup.ts',
      globalTeardown: '<rootDir>/integration/support/global-teardown.ts',
    },
  ],
};
