import type { SuiteRunner } from '../../src/testing/index.js';

/** A {@link SuiteRunner} with the results of {@link BareRunner.run}. */
export interface BareRunner extends SuiteRunner {
  /** Runs the collected tests (those whose full name matches `only`, when given) one by one, in order. */
  run(only?: RegExp): Promise<{ passed: string[]; failed: string[] }>;
}

/**
 * A runner with only `describe` and `it` (no hooks, no test context, no time limits, as a vitest or mocha user
 * might hand the contract suites less than node:test does): it collects the tests, then runs them one by one.
 */
export function bareRunner(): BareRunner {
  const prefix: string[] = [];
  const tests: { name: string; body: () => Promise<void> }[] = [];
  return {
    describe(name, body) {
      prefix.push(name);
      body();
      prefix.pop();
    },
    it(name, body) {
      tests.push({ name: [...prefix, name].join(' > '), body });
    },
    async run(only) {
      const passed: string[] = [];
      const failed: string[] = [];
      for (const test of tests) {
        if (only && !only.test(test.name)) continue;
        await test.body().then(
          () => passed.push(test.name),
          (error: unknown) => failed.push(`${test.name}: ${String(error)}`),
        );
      }
      return { passed, failed };
    },
  };
}
