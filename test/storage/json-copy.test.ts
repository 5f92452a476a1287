import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { copyJson, toJson } from '../../src/storage/json-copy.js';

describe('json-copy', () => {
  const record = toJson({ a: 1, gone: undefined, at: new Date(0), nested: { list: [1, { b: 'x' }, null], nan: Number.NaN }, yes: true });

  it('toJson gives what JSON carries: no undefined fields, dates as text, NaN as null', () => {
    assert.deepEqual(record, { a: 1, at: '1970-01-01T00:00:00.000Z', nested: { list: [1, { b: 'x' }, null], nan: null }, yes: true });
  });

  it('copyJson equals parsing the JSON text again and shares no object with its source', () => {
    const copy = copyJson(record);
    assert.deepEqual(copy, JSON.parse(JSON.stringify(record)));
    assert.notEqual(copy.nested, record.nested);
    assert.notEqual(copy.nested.list, record.nested.list);
    assert.notEqual(copy.nested.list[1], record.nested.list[1]);
    (copy.nested.list[1] as { b: string }).b = 'changed';
    assert.equal((record.nested.list[1] as { b: string }).b, 'x');
  });

  it('copyJson keeps a "__proto__" key as an own field, as JSON.parse does, and never sets the copy\'s prototype', () => {
    // A record's free-form JSON (a host kind's input, say) may hold the key: JSON.parse makes it an own property.
    const source = toJson(JSON.parse('{"meta":{"__proto__":{"admin":true},"a":1}}') as { meta: Record<string, unknown> });
    const copy = copyJson(source);
    assert.deepEqual(Object.keys(copy.meta), ['__proto__', 'a']);
    assert.equal(Object.getPrototypeOf(copy.meta), Object.prototype);
    assert.equal(copy.meta['admin'], undefined);
    assert.equal(JSON.stringify(copy), JSON.stringify(source));
  });
});
