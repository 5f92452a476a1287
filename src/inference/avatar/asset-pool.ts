/**
 * The child processes that render avatars' catalogue assets (idle clips, previews, thumbnails): canvas drawing,
 * image decoding and PNG encoding are native code, and drawing a clip takes seconds of CPU, so neither runs in the
 * host's process.
 */
import { inChildProcess } from '../workers/child.js';
import { childModule } from '../workers/child-module.js';
import { TaskPool } from '../workers/task-pool.js';
import type { AssetTask } from './asset-task.js';

/** Where an asset renderer draws: in a pooled child process (default) or on the calling thread. */
export type AssetThread = 'worker' | 'main';

let pool: TaskPool<AssetTask, void> | undefined;
const ASSET_WORKER = childModule(import.meta.url, 'asset-worker');

/**
 * Renders `task` in an asset child and resolves true once it is written; false (nothing done) where it is to run
 * on the calling thread: `thread` is `'main'`, the package was bundled into one file, or the caller already is one
 * of this package's children.
 */
export async function renderInChild(task: AssetTask, thread: AssetThread | undefined, signal?: AbortSignal): Promise<boolean> {
  if ((thread ?? 'worker') === 'main' || !ASSET_WORKER || inChildProcess()) return false;
  // One child: assets are made once per avatar; a clip is a few seconds of drawing and encoding.
  pool ??= new TaskPool({ name: 'avatar assets', module: ASSET_WORKER, maxWorkers: 1, maxOldGenerationSizeMb: 512 });
  await pool.run(task, { signal });
  return true;
}

/** Asset children started and not ended (for tests and diagnostics). */
export function assetWorkers(): number {
  return pool?.size ?? 0;
}
