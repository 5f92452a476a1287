import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/*
 * The layering rule of src/, checked on every import so it cannot rot:
 *   adapters → core → storage | queue | inference → domain
 * src/domain is the leaf (the job record, the transition table, the Logger, the engine interfaces, the
 * avatar definition format); src/testing sits above core (the adapter suite builds an instance).
 */

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

/** Bare packages src/domain may use besides `node:` built-ins: small and pure. */
const DOMAIN_PACKAGES = new Set(['zod']);

/** Folders below core: they may import src/domain and each other, never these. */
const BELOW_CORE = ['storage', 'queue', 'inference'];
const ABOVE_CORE = ['core', 'adapters', 'testing'];

/** The top-level folder of src/ that `path` (absolute) lies in, or `''` for a file directly in src/ or outside it. */
function areaOf(path: string): string {
  const parts = relative(SRC, path).split(/[\\/]/);
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : '';
}

/** Every module specifier of `text`: static imports, `export … from`, `import type`, `import()`. */
function specifiersOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((file) => file.fileName);
}

/** The rule's verdict on one import of the file at `file` (absolute): why it is not allowed, or undefined. */
function violation(file: string, specifier: string): string | undefined {
  const from = areaOf(file);
  const relativeImport = specifier.startsWith('.');
  const to = relativeImport ? areaOf(resolve(dirname(file), specifier)) : undefined;
  if (from === 'domain') {
    if (relativeImport) return to === 'domain' ? undefined : `src/domain imports outside src/domain (${specifier})`;
    const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
    return specifier.startsWith('node:') || DOMAIN_PACKAGES.has(name) ? undefined : `src/domain imports the package ${specifier}`;
  }
  if (to === undefined) return undefined;
  if (BELOW_CORE.includes(from) && ABOVE_CORE.includes(to)) return `src/${from} imports src/${to} (${specifier})`;
  if (from === 'core' && (to === 'adapters' || to === 'testing')) return `src/core imports src/${to} (${specifier})`;
  return undefined;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('layering of src/', () => {
  it('the checker flags each kind of forbidden import and passes allowed ones', () => {
    const at = (path: string) => join(SRC, path);
    assert.match(violation(at('domain/job.ts'), '../core/options.js') ?? '', /outside src\/domain/);
    assert.match(violation(at('domain/job.ts'), 'p-queue') ?? '', /package p-queue/);
    assert.match(violation(at('storage/fs-blob-store.ts'), '../core/job.js') ?? '', /src\/storage imports src\/core/);
    assert.match(violation(at('inference/lipsync/engine.ts'), '../../testing/wav.js') ?? '', /src\/inference imports src\/testing/);
    assert.match(violation(at('queue/job-queue.ts'), '../adapters/express.js') ?? '', /src\/queue imports src\/adapters/);
    assert.match(violation(at('core/service.ts'), '../adapters/instance.js') ?? '', /src\/core imports src\/adapters/);
    assert.equal(violation(at('domain/avatar/definition.ts'), './look.js'), undefined);
    assert.equal(violation(at('domain/engines.ts'), './job.js'), undefined);
    assert.equal(violation(at('domain/job.ts'), 'zod'), undefined);
    assert.equal(violation(at('domain/job.ts'), 'node:path'), undefined);
    assert.equal(violation(at('storage/job-store.ts'), '../domain/job.js'), undefined);
    assert.equal(violation(at('core/service.ts'), '../storage/job-store.js'), undefined);
    assert.equal(violation(at('testing/adapter-suite.ts'), '../core/create-virtual-anchor.js'), undefined);
    assert.deepEqual(
      specifiersOf("import type { A } from './a.js';\nexport { B } from '../b.js';\nconst c = await import('./c.js');"),
      ['./a.js', '../b.js', './c.js'],
    );
  });

  it('no file under src/ breaks the rule', () => {
    const files = tsFiles(SRC);
    assert.ok(files.some((file) => areaOf(file) === 'domain'), 'src/domain exists');
    const broken = files.flatMap((file) =>
      specifiersOf(readFileSync(file, 'utf8')).flatMap((specifier) => {
        const why = violation(file, specifier);
        return why ? [`${relative(SRC, file)}: ${why}`] : [];
      }),
    );
    assert.deepEqual(broken, []);
  });
});
