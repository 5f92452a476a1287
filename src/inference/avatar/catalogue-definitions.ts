import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { avatarDefinitionSchema, type AvatarDefinition, type AvatarDefinitionInput } from '../../domain/avatar/definition.js';

/** The folder of bundled avatar definitions (`avatars/` at the package root, from `src/` or `dist/`). */
export const BUILT_IN_AVATARS_DIR = fileURLToPath(new URL('../../../avatars/', import.meta.url));

/** An avatar definition file or entry is invalid, or two definitions share an id. */
export class AvatarDefinitionError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AvatarDefinitionError';
  }
}

/** Where the catalogue's definitions come from. */
export interface LoadAvatarDefinitionsOptions {
  /** Include the bundled avatars (default true). */
  builtIn?: boolean;
  /** A folder of `*.json` files, one definition each (the operator's own avatars). */
  directory?: string;
  /** Definitions given in code. */
  definitions?: readonly AvatarDefinitionInput[];
  /** Override of {@link BUILT_IN_AVATARS_DIR} (tests). */
  builtInDirectory?: string;
}

/** A validated definition and where it came from (a file path or `definitions[i]`). */
interface Sourced {
  definition: AvatarDefinition;
  source: string;
}

/** Validates one definition; `source` names it in the error. */
export function parseAvatarDefinition(input: unknown, source: string): AvatarDefinition {
  const result = avatarDefinitionSchema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
  throw new AvatarDefinitionError(`invalid avatar definition in ${source}: ${issues}`, { cause: result.error });
}

/** Reads and validates every `*.json` in `directory`, in file-name order. */
export async function readAvatarDirectory(directory: string): Promise<Sourced[]> {
  let names: string[];
  try {
    names = (await readdir(directory)).filter((name) => name.endsWith('.json')).sort();
  } catch (error) {
    throw new AvatarDefinitionError(`cannot read avatar folder ${directory}: ${(error as Error).message}`, { cause: error });
  }
  const out: Sourced[] = [];
  for (const name of names) {
    const path = join(directory, name);
    let json: unknown;
    try {
      json = JSON.parse(await readFile(path, 'utf8'));
    } catch (error) {
      throw new AvatarDefinitionError(`cannot read avatar definition ${path}: ${(error as Error).message}`, { cause: error });
    }
    out.push({ definition: parseAvatarDefinition(json, path), source: path });
  }
  return out;
}

/**
 * The catalogue's definitions: bundled ones (file-name order), then the operator's folder, then
 * those given in code. All are validated; a repeated id is an error naming both sources.
 *
 * @throws {AvatarDefinitionError}
 */
export async function loadAvatarDefinitions(options: LoadAvatarDefinitionsOptions = {}): Promise<AvatarDefinition[]> {
  const all: Sourced[] = [];
  if (options.builtIn ?? true) all.push(...(await readAvatarDirectory(options.builtInDirectory ?? BUILT_IN_AVATARS_DIR)));
  if (options.directory) all.push(...(await readAvatarDirectory(options.directory)));
  (options.definitions ?? []).forEach((input, i) => {
    all.push({ definition: parseAvatarDefinition(input, `definitions[${i}]`), source: `definitions[${i}]` });
  });
  const seen = new Map<string, string>();
  for (const { definition, source } of all) {
    const first = seen.get(definition.id);
    if (first) throw new AvatarDefinitionError(`duplicate avatar id "${definition.id}" in ${first} and ${source}`);
    seen.set(definition.id, source);
  }
  return all.map((entry) => entry.definition);
}
