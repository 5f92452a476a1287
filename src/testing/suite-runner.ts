/**
 * The two functions of a test runner that the contract suites need: `describe` and `it` of node:test, vitest or
 * mocha all fit (pass them as they are). A suite registers its tests with them and uses no hook (`before`,
 * `afterEach`): each test sets up and cleans up what it uses, so the suites run the same under every runner.
 * Some tests take seconds (large files, real HTTP): raise a runner's default time limit (vitest `testTimeout`,
 * mocha `--timeout`) to about 60 s.
 */
export interface SuiteRunner {
  /** Groups tests: `describe(name, body)`. */
  describe(name: string, body: () => void): unknown;
  /** One test: `it(name, body)`; the body's promise rejects when the test fails. */
  it(name: string, body: () => Promise<void>): unknown;
}
