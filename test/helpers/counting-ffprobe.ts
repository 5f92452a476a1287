import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BINARIES } from './media.js';

/** An ffprobe that logs each run's arguments, then runs the real one (see {@link countingFfprobe}). */
export interface CountingFfprobe {
  /** The script to give as `ffprobePath`. */
  path: string;
  /** The arguments of every run so far, one string each, oldest first. */
  runs(): Promise<string[]>;
}

/**
 * A test double of ffprobe: a shell script in `dir` that appends its arguments to a log, then (after `delaySec`, to
 * hold the media children for a known time whatever the machine's load; only for runs whose arguments contain
 * `delayWhen`, when given) execs the real ffprobe of the tests ({@link BINARIES}), so a test can count how often the
 * service ran it and for what.
 */
export async function countingFfprobe(dir: string, { delaySec = 0, delayWhen }: { delaySec?: number; delayWhen?: string } = {}): Promise<CountingFfprobe> {
  const path = join(dir, 'ffprobe');
  const log = join(dir, 'ffprobe.log');
  const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  await writeFile(log, '');
  const sleep = `sleep ${delaySec}`;
  const delay = delaySec <= 0 ? '' : delayWhen === undefined ? `${sleep}\n` : `case "$*" in *${quote(delayWhen)}*) ${sleep};; esac\n`;
  await writeFile(path, `#!/bin/sh\nprintf '%s\\n' "$*" >> ${quote(log)}\n${delay}exec ${quote(BINARIES.ffprobePath)} "$@"\n`);
  await chmod(path, 0o755);
  return { path, runs: async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean) };
}
