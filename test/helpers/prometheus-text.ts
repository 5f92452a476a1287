/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), for tests: every line must be a
 * `# HELP`, a `# TYPE` or a sample of a declared family, names and label syntax are checked, and a family's
 * samples must follow its TYPE line. Throws on the first bad line, naming it.
 */

/** One sample line. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** One metric family (a `# TYPE` line and its samples). */
export interface Family {
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help?: string;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*';
const VALUE = '(?:[+-]?(?:\\d+\\.?\\d*(?:[eE][+-]?\\d+)?|\\.\\d+(?:[eE][+-]?\\d+)?)|[+-]Inf|NaN)';
const LABEL_PAIR = `${LABEL}="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"`;
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL_PAIR})(?:,${LABEL_PAIR})*,?)?\\})? (${VALUE})(?: -?\\d+)?$`);
const HELP = new RegExp(`^# HELP (${NAME}) (.*)$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const SUFFIXES: Record<Family['type'], string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

function parseLabels(text: string | undefined): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const match of (text ?? '').matchAll(new RegExp(`(${LABEL})="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"`, 'g'))) {
    const [, name, raw] = match;
    if (name! in labels) throw new Error(`label ${name} appears twice`);
    labels[name!] = raw!.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

function parseValue(text: string): number {
  if (text.endsWith('Inf')) return text.startsWith('-') ? -Infinity : Infinity;
  return Number(text);
}

/** Parses exposition text into its families, by name. */
export function parsePrometheusText(text: string): Map<string, Family> {
  if (text !== '' && !text.endsWith('\n')) throw new Error('the exposition must end with a newline');
  const families = new Map<string, Family>();
  const helps = new Map<string, string>();
  let current: { name: string; family: Family } | undefined;
  text
    .split('\n')
    .slice(0, -1)
    .forEach((line, index) => {
      const where = `line ${index + 1} (${JSON.stringify(line)})`;
      if (line.trim() === '') return;
      let match: RegExpExecArray | null;
      if ((match = HELP.exec(line))) {
        if (helps.has(match[1]!)) throw new Error(`${where}: second HELP for ${match[1]}`);
        helps.set(match[1]!, match[2]!);
        return;
      }
      if ((match = TYPE.exec(line))) {
        const name = match[1]!;
        if (families.has(name)) throw new Error(`${where}: second TYPE for ${name}`);
        const family: Family = { type: match[2] as Family['type'], help: helps.get(name), samples: [] };
        families.set(name, family);
        current = { name, family };
        return;
      }
      if (line.startsWith('#')) throw new Error(`${where}: a comment that is neither HELP nor TYPE`);
      match = SAMPLE.exec(line);
      if (!match) throw new Error(`${where}: not a sample line`);
      const [, name, labelText, valueText] = match;
      if (!current || !SUFFIXES[current.family.type].some((suffix) => `${current!.name}${suffix}` === name)) {
        throw new Error(`${where}: sample outside its family's TYPE block`);
      }
      const labels = parseLabels(labelText);
      if (current.family.type === 'histogram' && name!.endsWith('_bucket') && labels.le === undefined) throw new Error(`${where}: bucket without le`);
      current.family.samples.push({ name: name!, labels, value: parseValue(valueText!) });
    });
  return families;
}

/** The value of the sample `name` whose labels include `labels`, or undefined when there is none. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const family of families.values()) {
    const found = family.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
    if (found) return found.value;
  }
  return undefined;
}
