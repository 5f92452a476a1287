import assert from 'node:assert/strict';

/** Resolves once `check` resolves true, polling every 25 ms; rejects after `limitMs`. */
export async function eventually(what: string, check: () => Promise<boolean>, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`${what} did not happen within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
