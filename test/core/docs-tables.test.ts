import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { ERROR_STATUSES } from '../../src/core/api/error-codes.js';
import { optionsSchema } from '../../src/core/options.js';
import { GENERATED, optionRows, renderDocs, renderErrorsTable, renderOptionsTable, replaceBetweenMarkers } from '../../scripts/docs-tables.js';

/*
 * docs/options.md and docs/errors.md hold tables written from the code (scripts/docs-tables.ts): the option schema's
 * descriptions and the error-code table. These tests fail when the committed docs differ from what the code
 * renders, so a new option or error code cannot go undocumented. Fix: `npm run docs:tables`, and commit the docs.
 */

/** The first line where `actual` and `expected` differ, for a readable failure. */
function firstDifference(actual: string, expected: string): string {
  const a = actual.split('\n');
  const b = expected.split('\n');
  const i = a.findIndex((line, index) => line !== b[index]);
  const at = i < 0 ? Math.min(a.length, b.length) : i;
  return `line ${at + 1}:\n  committed: ${a[at] ?? '(end of file)'}\n  rendered:  ${b[at] ?? '(end of file)'}`;
}

describe('generated docs tables', () => {
  it('docs/options.md and docs/errors.md are what `npm run docs:tables` writes from the code', async () => {
    for (const doc of await renderDocs()) {
      assert.ok(
        doc.current === doc.expected,
        `${doc.file} differs from what the code renders: run \`npm run docs:tables\` and commit it (${firstDifference(doc.current, doc.expected)})`,
      );
    }
  });

  it('lists every option, the photo-avatar ones included, each with a description and a default', () => {
    const rows = optionRows();
    const names = rows.map((row) => row.name);
    for (const name of ['apiKeys', 's3.bucket', 'limits.maxPhotoBytes', 'limits.maxJsonBytes', 'webhooks.secret', 'backends.faceDetector', 'backends.photoRenderer', 'backends.avatarStore']) {
      assert.ok(names.includes(name), `the options table lists ${name}`);
    }
    assert.equal(new Set(names).size, names.length, 'no option is listed twice');
    for (const row of rows) {
      assert.ok(row.description.trim().length > 0, `${row.name} has a description`);
      assert.ok(row.default.trim().length > 0, `${row.name} has a default cell`);
    }
    // Every field of every group is a row: count the schema's leaves independently of the renderer.
    const group = (schema: z.ZodType): z.ZodObject | undefined => {
      let current: z.ZodType = schema;
      while (['optional', 'default', 'prefault'].includes(current._zod.def.type)) current = (current._zod.def as unknown as { innerType: z.ZodType }).innerType;
      return current instanceof z.ZodObject && !z.globalRegistry.get(schema)?.description ? current : undefined;
    };
    const leaves = (shape: Record<string, z.ZodType>, prefix: string): string[] =>
      Object.entries(shape).flatMap(([key, field]) => {
        const inner = group(field);
        return inner ? leaves(inner.shape as Record<string, z.ZodType>, `${prefix}${key}.`) : [`${prefix}${key}`];
      });
    assert.deepEqual(names, leaves(optionsSchema.shape as Record<string, z.ZodType>, ''));
  });

  it('writes defaults from the schema with their units', () => {
    const byName = new Map(optionRows().map((row) => [row.name, row.default]));
    assert.equal(byName.get('limits.maxPhotoBytes'), '20 MiB');
    assert.equal(byName.get('limits.maxJsonBytes'), '64 KiB');
    assert.equal(byName.get('retention.recordsMs'), '7 days');
    assert.equal(byName.get('retention.linkTtlMs'), '1 h');
    assert.equal(byName.get('shutdownTimeoutMs'), '10 000');
    assert.equal(byName.get('webhooks.retryDelaysMs'), '5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h');
    assert.equal(byName.get('role'), "`'all'`");
    assert.equal(byName.get('concurrency.engines'), 'CPU cores', 'a defaultText where the schema has no default');
    assert.equal(byName.get('redis'), '—', 'no default at all');
  });

  it('refuses an option without a description, naming it', () => {
    const schema = z.object({ documented: z.number().default(1).describe('has one'), group: z.object({ bare: z.string().optional() }).prefault({}) });
    assert.throws(() => optionRows(schema), /group\.bare/);
  });

  it('lists every error code of every status, no_face, face_too_small and built_in_avatar included', () => {
    const table = renderErrorsTable();
    for (const [status, { codes }] of Object.entries(ERROR_STATUSES)) {
      for (const [code, when] of Object.entries(codes)) {
        assert.ok(when.trim().length > 0, `${status} ${code} says when it is answered`);
        assert.ok(table.includes(`| ${status} | \`${code}\` |`), `the errors table lists ${status} ${code}`);
      }
    }
    for (const row of ['| 400 | `no_face` |', '| 400 | `face_too_small` |', '| 403 | `built_in_avatar` |', '| 429 | `too_many_requests` |']) {
      assert.ok(table.includes(row), row);
    }
  });

  it('a changed description is caught: the rendered table then differs from the committed one', async () => {
    const docs = await renderDocs();
    const options = docs.find((doc) => doc.file === 'docs/options.md')!;
    const part = GENERATED.find((generated) => generated.file === 'docs/options.md')!;
    const changed = z.object({ ...optionsSchema.shape, basePath: optionsSchema.shape.basePath.describe('a changed description') });
    assert.notEqual(replaceBetweenMarkers(options.current, part, renderOptionsTable(changed)), options.current);

    const errors = docs.find((doc) => doc.file === 'docs/errors.md')!;
    const errorsPart = GENERATED.find((generated) => generated.file === 'docs/errors.md')!;
    const changedCodes = { ...ERROR_STATUSES, 404: { ...ERROR_STATUSES[404]!, codes: { not_found: 'a changed description' } } };
    assert.notEqual(replaceBetweenMarkers(errors.current, errorsPart, renderErrorsTable(changedCodes)), errors.current);
  });

  it('keeps the text around the markers and refuses a doc without them', () => {
    const part = { file: 'x.md', marker: 'options', source: 'somewhere' };
    const text = 'before\n<!-- options:begin -->\nold\n<!-- options:end -->\nafter\n';
    const out = replaceBetweenMarkers(text, part, '| new |');
    assert.match(out, /^before\n<!-- options:begin -->\n<!-- generated by .* -->\n\n\| new \|\n\n<!-- options:end -->\nafter\n$/);
    assert.equal(replaceBetweenMarkers(out, part, '| new |'), out, 'rendering twice changes nothing');
    assert.throws(() => replaceBetweenMarkers('no markers', part, ''), /x\.md lacks the markers/);
  });
});
