import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fsErrorCode } from './fs-error-code.js';

/**
 * Entries untouched for this long are removed whoever made them (longer than any job's deadline or any
 * upload takes); it is the only rule for entries whose owner cannot be checked (another host, a name
 * without an owner) and covers a dead owner's pid reused by another process.
 */
export const FOREIGN_LEFTOVER_AGE_MS = 24 * 3_600_000;

/** `<prefix>-<pid>@<host>~<random>`: the owner of a scratch entry, readable from its name. */
const OWNED_NAME = /^[a-z]+-(\d+)@([A-Za-z0-9.-]+)~[A-Za-z0-9_-]+$/;

/** This host's name as it appears in entry names (characters outside `[A-Za-z0-9.-]` become `-`). */
const HOST = hostname().replace(/[^A-Za-z0-9.-]/g, '-').slice(0, 64) || 'host';

/** What {@link OwnedDirs.removeLeftovers} did. */
export interface LeftoverSweep {
  /** Names of the entries removed. */
  removed: string[];
  /** Entries that could not be removed (or the folder could not be read), with why. */
  failed: { name: string; error: string }[];
}

/**
 * A folder of scratch entries (job work folders, blobs being written or deleted) named after the
 * process that made them, so that a later process can tell which ones a crashed owner left behind.
 * Two processes may share the folder: an entry is only removed when its owner is known to be dead
 * (same host, pid not running) or when it was untouched for {@link FOREIGN_LEFTOVER_AGE_MS}.
 */
export class OwnedDirs {
  constructor(readonly root: string) {}

  /** A fresh, empty folder `<root>/<prefix>-<pid>@<host>~XXXXXX` (the root is created when missing). */
  async create(prefix: string): Promise<string> {
    await mkdir(this.root, { recursive: true });
    return mkdtemp(join(this.root, `${ownedPrefix(prefix)}~`));
  }

  /** A fresh, unused path `<root>/<prefix>-<pid>@<host>~<random>` (not created), e.g. for a rename target. */
  path(prefix: string): string {
    return join(this.root, `${ownedPrefix(prefix)}~${randomBytes(12).toString('base64url')}`);
  }

  /**
   * Removes the entries of dead owners. Never touches a recent entry of a process that is alive on this
   * host (this one included: another instance in this process may be using it). Never rejects.
   */
  async removeLeftovers(now = Date.now()): Promise<LeftoverSweep> {
    const sweep: LeftoverSweep = { removed: [], failed: [] };
    let names: string[];
    try {
      names = await readdir(this.root);
    } catch (error) {
      if (fsErrorCode(error) !== 'ENOENT') sweep.failed.push({ name: '.', error: String(error) });
      return sweep;
    }
    for (const name of names) {
      try {
        if (!(await this.#abandoned(name, now))) continue;
        await rm(join(this.root, name), { recursive: true, force: true });
        sweep.removed.push(name);
      } catch (error) {
        if (fsErrorCode(error) !== 'ENOENT') sweep.failed.push({ name, error: String(error) });
      }
    }
    return sweep;
  }

  async #abandoned(name: string, now: number): Promise<boolean> {
    const owner = OWNED_NAME.exec(name);
    if (owner && owner[2] === HOST && !isAlive(Number(owner[1]))) return true;
    const { mtimeMs } = await stat(join(this.root, name));
    return now - mtimeMs > FOREIGN_LEFTOVER_AGE_MS;
  }
}

function ownedPrefix(prefix: string): string {
  if (!/^[a-z]+$/.test(prefix)) throw new RangeError(`scratch prefix must be lower-case letters: ${prefix}`);
  return `${prefix}-${process.pid}@${HOST}`;
}

/** Whether a process with this pid runs on this host (one we may not signal counts as running). */
function isAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return fsErrorCode(error) !== 'ESRCH';
  }
}
