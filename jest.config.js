/** Type checking is done once by `tsc --noEmit` in `npm test`; ts-jest only transpiles (fast). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { isolatedModules: true, diagnostics: false }] },
  testTimeout: 30000,
  maxWorkers: 2,
};
