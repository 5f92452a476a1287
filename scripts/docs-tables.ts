/**
 * Writes the two generated tables of the docs from the code they describe, so the docs cannot drift from it:
 *
 *   docs/options.md  between <!-- options:begin --> and <!-- options:end -->: every option of `optionsSchema`
 *                    (src/core/options.ts), its default and its `.describe()` text
 *   docs/errors.md   between <!-- errors:begin --> and <!-- errors:end -->: every status and `error.code` of
 *                    `ERROR_STATUSES` (src/core/api/error-codes.ts) and when it is answered
 *
 *   npm run docs:tables                 → rewrites both tables (the rest of each file is kept as it is)
 *   tsx scripts/docs-tables.ts --check  → exits 1 when a committed table differs from what the code renders
 *
 * test/core/docs-tables.test.ts fails when the committed docs differ. An option without a description is an
 * error here, not a blank cell: add `.describe()` (or `.meta({ description, defaultText })`) to the schema.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { optionsSchema } from '../src/core/options.js';
import { ERROR_STATUSES, type ErrorStatus } from '../src/core/api/error-codes.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** One row of the options table. */
export interface OptionRow {
  /** Dotted path, e.g. `limits.maxPhotoBytes`. */
  name: string;
  /** The default in words (markdown). */
  default: string;
  /** What the option does (markdown). */
  description: string;
}

/** Wrapper types whose inner schema is the option itself. */
const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch', 'nonoptional']);

/** `schema` and the schemas it wraps, outermost first. */
function layers(schema: z.ZodType): z.ZodType[] {
  const out: z.ZodType[] = [];
  let current: z.ZodType | undefined = schema;
  while (current) {
    out.push(current);
    const def = current._zod.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
    current = WRAPPERS.has(def.type) ? def.innerType : def.type === 'pipe' ? def.in : undefined;
  }
  return out;
}

const KiB = 1024;
const MiB = 1024 * KiB;
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** 300000 → `300 000`, as the docs write numbers. */
const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');

/** A duration in the largest whole unit: `5 s`, `30 min`, `10 h`. */
function duration(ms: number): string {
  if (ms % HOUR === 0) return `${ms / HOUR} h`;
  if (ms % MINUTE === 0) return `${ms / MINUTE} min`;
  if (ms % SECOND === 0) return `${ms / SECOND} s`;
  return `${grouped(ms)} ms`;
}

/** A schema default as the table shows it; the option's name says the unit (`…Bytes`, `…Ms`). */
export function formatDefault(name: string, value: unknown): string {
  if (typeof value === 'number') {
    if (/Bytes$/.test(name)) {
      if (value % MiB === 0) return `${value / MiB} MiB`;
      if (value % KiB === 0) return `${value / KiB} KiB`;
    }
    if (/Ms$/.test(name)) {
      if (value % DAY === 0 && value >= 2 * DAY) return `${value / DAY} days`;
      if (value % HOUR === 0) return `${value / HOUR} h`;
    }
    return grouped(value);
  }
  if (Array.isArray(value) && value.length > 0 && /Ms$/.test(name) && value.every((v) => typeof v === 'number')) {
    return value.map((v: number) => duration(v)).join(', ');
  }
  if (typeof value === 'string') return `\`'${value}'\``;
  return `\`${JSON.stringify(value)}\``;
}

/**
 * The rows of the options table, in the schema's order. A field with a description is an option (a row); an
 * object without one is a group, whose fields are listed under `group.field`.
 *
 * @throws Error naming every option that has no description.
 */
export function optionRows(schema: z.ZodObject = optionsSchema as unknown as z.ZodObject): OptionRow[] {
  const rows: OptionRow[] = [];
  const undocumented: string[] = [];
  const walk = (shape: Record<string, z.ZodType>, prefix: string) => {
    for (const [key, field] of Object.entries(shape)) {
      const name = prefix + key;
      const all = layers(field);
      const meta = all.map((layer) => z.globalRegistry.get(layer)).find((m) => m?.description);
      const core = all[all.length - 1]!;
      if (!meta) {
        if (core instanceof z.ZodObject) walk(core.shape as Record<string, z.ZodType>, `${name}.`);
        else undocumented.push(name);
        continue;
      }
      const withDefault = all.find((layer) => layer._zod.def.type === 'default');
      const fallback = withDefault ? formatDefault(name, (withDefault._zod.def as unknown as { defaultValue: unknown }).defaultValue) : '—';
      rows.push({ name, default: meta.defaultText ?? fallback, description: meta.description! });
    }
  };
  walk(schema.shape as Record<string, z.ZodType>, '');
  if (undocumented.length > 0) {
    throw new Error(
      `options without a description in src/core/options.ts (add .describe('…'), or .meta({ description, defaultText })): ${undocumented.join(', ')}`,
    );
  }
  return rows;
}

/** A markdown table cell: one line, pipes escaped. */
const cell = (text: string) => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** The options table of docs/options.md. */
export function renderOptionsTable(schema?: z.ZodObject): string {
  return table(
    ['Option', 'Default', 'Meaning'],
    optionRows(schema).map((row) => [`\`${row.name}\``, row.default, row.description]),
  );
}

/** The error-code table of docs/errors.md: one row per status and code, by status. */
export function renderErrorsTable(statuses: Record<number, ErrorStatus> = ERROR_STATUSES): string {
  const rows = Object.entries(statuses)
    .sort(([a], [b]) => Number(a) - Number(b))
    .flatMap(([status, { codes }]) => Object.entries(codes).map(([code, when]) => [status, `\`${code}\``, when]));
  return table(['Status', '`code`', 'When'], rows);
}

/** A generated part of a doc. */
interface Generated {
  /** Path from the repository root. */
  file: string;
  /** Marker name: the table lies between `<!-- name:begin -->` and `<!-- name:end -->`. */
  marker: string;
  /** Where it comes from, for the note above the table. */
  source: string;
  render: () => string;
}

export const GENERATED: readonly Generated[] = [
  {
    file: 'docs/options.md',
    marker: 'options',
    source: "`optionsSchema` in src/core/options.ts (each option's `.describe()`)",
    render: () => renderOptionsTable(),
  },
  { file: 'docs/errors.md', marker: 'errors', source: '`ERROR_STATUSES` in src/core/api/error-codes.ts', render: () => renderErrorsTable() },
];

/** `text` with the part between the markers replaced by `body` (with the note saying where it comes from). */
export function replaceBetweenMarkers(text: string, part: Pick<Generated, 'file' | 'marker' | 'source'>, body: string): string {
  const begin = `<!-- ${part.marker}:begin -->`;
  const end = `<!-- ${part.marker}:end -->`;
  const from = text.indexOf(begin);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${part.file} lacks the markers ${begin} … ${end}`);
  const note = `<!-- generated by \`npm run docs:tables\` from ${part.source}: change the code, not this table -->`;
  return `${text.slice(0, from + begin.length)}\n${note}\n\n${body}\n\n${text.slice(to)}`;
}

/** Each generated doc as it is on disk and as the code renders it. */
export async function renderDocs(root: string = ROOT): Promise<{ file: string; current: string; expected: string }[]> {
  return Promise.all(
    GENERATED.map(async (part) => {
      const current = await readFile(join(root, part.file), 'utf8');
      return { file: part.file, current, expected: replaceBetweenMarkers(current, part, part.render()) };
    }),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  renderDocs().then(
    async (docs) => {
      const stale = docs.filter((doc) => doc.current !== doc.expected);
      if (check) {
        for (const doc of stale) console.error(`${doc.file} differs from what the code renders: run npm run docs:tables`);
        process.exit(stale.length > 0 ? 1 : 0);
      }
      for (const doc of stale) await writeFile(join(ROOT, doc.file), doc.expected);
      console.log(stale.length > 0 ? `rewrote ${stale.map((doc) => doc.file).join(', ')}` : 'docs tables are up to date');
    },
    (error: Error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
