import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { AvatarDefinitionError, loadAvatarDefinitions } from '../../src/inference/avatar/catalogue-definitions.js';
import { avatarDefinitionSchema, lookOf } from '../../src/domain/avatar/definition.js';

test('the bundled avatars validate and there are at least three', async () => {
  const defs = await loadAvatarDefinitions();
  assert.ok(defs.length >= 3);
  for (const def of defs) {
    assert.ok(def.look, `${def.id} has a look`);
    assert.equal(def.width, 512);
    assert.equal(def.height, 512);
  }
});

test('the bundled avatars look distinct: head, hair, eyes, skin and clothing differ pairwise', async () => {
  const looks = (await loadAvatarDefinitions()).map(lookOf);
  const features: Record<string, (look: (typeof looks)[number]) => string> = {
    head: (l) => l.head.shape,
    hair: (l) => `${l.hair.style} ${l.hair.color}`,
    eyes: (l) => l.eyes.iris,
    skin: (l) => l.skin.tone,
    clothing: (l) => `${l.clothing.style} ${l.clothing.color}`,
  };
  for (const [name, feature] of Object.entries(features)) {
    const values = looks.map(feature);
    assert.equal(new Set(values).size, values.length, `${name} differs: ${values.join(', ')}`);
  }
});

test('a minimal definition gets every default, including a full look', () => {
  const def = avatarDefinitionSchema.parse({ id: 'plain', name: 'Plain', look: {} });
  assert.equal(def.fps, 25);
  assert.equal(def.look?.hair.style, 'short');
  assert.equal(def.look?.clothing.style, 'tshirt');
  assert.equal(lookOf(avatarDefinitionSchema.parse({ id: 'bare', name: 'Bare' })).eyes.shape, 'almond');
});

test('invalid definitions are rejected with the field named', async () => {
  await assert.rejects(
    loadAvatarDefinitions({ builtIn: false, definitions: [{ id: 'x', name: 'X', look: { hair: { color: 'red' } } }] }),
    (error: unknown) => error instanceof AvatarDefinitionError && /definitions\[0\].*look\.hair\.color/.test(error.message),
  );
  await assert.rejects(loadAvatarDefinitions({ builtIn: false, definitions: [{ id: 'Bad Id', name: 'X' }] }), AvatarDefinitionError);
});

test('an operator folder and in-code definitions are added; duplicate ids are a clear error', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'va-avatars-'));
  try {
    await writeFile(join(dir, 'zoe.json'), JSON.stringify({ id: 'zoe', name: 'Zoe', look: { hair: { style: 'bun' } } }));
    await writeFile(join(dir, 'notes.txt'), 'ignored');
    const defs = await loadAvatarDefinitions({ directory: dir, definitions: [{ id: 'max', name: 'Max' }] });
    assert.deepEqual(defs.slice(-2).map((d) => d.id), ['zoe', 'max']);

    await writeFile(join(dir, 'ava-again.json'), JSON.stringify({ id: 'ava', name: 'Another Ava' }));
    await assert.rejects(loadAvatarDefinitions({ directory: dir }), (error: unknown) => {
      assert.ok(error instanceof AvatarDefinitionError);
      assert.match(error.message, /duplicate avatar id "ava" in .*ava\.json and .*ava-again\.json/);
      return true;
    });
    await assert.rejects(
      loadAvatarDefinitions({ builtIn: false, definitions: [{ id: 'a', name: 'A' }, { id: 'a', name: 'B' }] }),
      /duplicate avatar id "a" in definitions\[0\] and definitions\[1\]/,
    );
    await writeFile(join(dir, 'broken.json'), '{ not json');
    await assert.rejects(loadAvatarDefinitions({ builtIn: false, directory: dir }), /broken\.json/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
