/**
 * The client's generated types are current: src/client/openapi-types.ts, committed, must be exactly what
 * scripts/client-types.ts writes for today's route table and schemas (rendered here in memory). After a change
 * to a schema, a route's doc or an error description, `npm run client:types` rewrites it. That the document it
 * is rendered from is the one an instance serves is checked in test/contract/openapi.test.ts.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { CLIENT_TYPES_FILE, renderClientTypes } from '../../scripts/client-types.js';

/** The first line where `actual` and `expected` differ, numbered from 1, with both versions of it. */
function firstDifference(actual: string, expected: string): string {
  const [a, b] = [actual.split('\n'), expected.split('\n')];
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line === -1 ? a.length : line;
  return `line ${at + 1}:\n  committed: ${a[at] ?? '(end of file)'}\n  generated: ${b[at] ?? '(end of file)'}`;
}

describe('generated client types (src/client/openapi-types.ts)', () => {
  it('are what scripts/client-types.ts generates from the current OpenAPI document', async () => {
    const [committed, generated] = await Promise.all([readFile(CLIENT_TYPES_FILE, 'utf8'), renderClientTypes()]);
    assert.ok(
      committed === generated,
      `${relative(process.cwd(), CLIENT_TYPES_FILE)} is out of date; run \`npm run client:types\` and commit it. First difference, ${firstDifference(committed, generated)}`,
    );
  });

  it('are types only, imported as types: the browser client loads nothing from them nor from openapi-typescript', async () => {
    assert.doesNotMatch(await readFile(CLIENT_TYPES_FILE, 'utf8'), /^(import|export (const|let|var|function|class|enum|default))\b/m);
    const dir = dirname(CLIENT_TYPES_FILE);
    for (const name of (await readdir(dir)).filter((file) => file.endsWith('.ts'))) {
      const source = await readFile(join(dir, name), 'utf8');
      assert.doesNotMatch(source, /from 'openapi-typescript'/, name);
      for (const [statement] of source.matchAll(/^(import|export)\b[^;]*'\.\/openapi-types\.js';/gm)) {
        assert.match(statement, /^(import|export) type /, `${name}: ${statement}`);
      }
    }
  });
});
