/** @jest-config-loader ts-node */
/** @jest-config-loader-options {"transpileOnly": true} */
import { availableParallelism } from 'node:os';
import type { Config } from 'jest';

// Native-ESM jest: client-node 2.x is ESM-only and jest's CJS loader cannot require() it on Node 20.
// ts-jest does not type-check in ESM mode, so `npm test` runs `tsc --noEmit` first.
const config: Config = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  // The examples import rxkrt by its package name, as users do; in tests that name means the sources.
  moduleNameMapper: {
    '^rxkrt$': '<rootDir>/src/index.ts',
    '^rxkrt/(.*)$': '<rootDir>/src/$1/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }] },
  testMatch: ['<rootDir>/spec/**/*.spec.ts'],
  testTimeout: 30_000,
  // Most suites wait on sockets, child processes (kubectl, Python, Chromium) and timers rather than the CPU, so more
  // workers than cores keeps both busy: on 2 cores the strict run takes 135 s with 3 workers, 367 s with jest's 1.
  maxWorkers: Math.max(2, Math.round(availableParallelism() * 1.5)),
  // A worker ends holding about 1 GB of test modules, and three of them freeing it at once on 2 cores can take
  // longer than jest's default 500 ms, which it then reports as a leak: every worker had emitted 'exit' by then.
  workerGracefulExitTimeout: 5_000,
};

export default config;
