import { processInfo, processTree } from '../../test/helpers/processes.js';

/** Clock ticks per second of /proc's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds of a whole job by process, i.e. by stage: this process (the host: messages, progress), the frame child
 * (drawing, the pipe's writing end), the ffmpeg it runs (x264, the AAC encode, the mp4: started by the frame
 * child's media spawner, its CPU reaches the spawner's `cutime` once it ends), the analysis child (features, the
 * viseme model) and the ffmpeg that decodes for it.
 */
export interface StageCpu {
  host: number;
  frameChild: number;
  encoder: number;
  analysisChild: number;
  decoder: number;
}

/** What the pooled children have used so far (they outlive a job, so two readings bracket one), with this process. */
export function stageCpu(): StageCpu {
  const sum: StageCpu = { host: 0, frameChild: 0, encoder: 0, analysisChild: 0, decoder: 0 };
  const self = processInfo('self');
  sum.host = (self?.ownTicks ?? 0) / TICKS_PER_SECOND;
  const tree = processTree(process.pid);
  for (const info of tree) {
    // The engine children (the launcher's children, see relayed-child.ts), by their process titles.
    if (!info.cmdline.startsWith('virtual-anchor ')) continue;
    const own = info.ownTicks / TICKS_PER_SECOND;
    const ended = (info.cpuTicks - info.ownTicks) / TICKS_PER_SECOND;
    if (info.cmdline === 'virtual-anchor frame drawing') {
      sum.frameChild += own;
      sum.encoder += ended;
      // Its ffmpeg processes are started by its media spawner: their CPU reaches the spawner's `cutime`.
      for (const below of tree) if (below.ppid === info.pid && below.cmdline.includes('media spawner')) sum.encoder += below.cpuTicks / TICKS_PER_SECOND;
    } else if (info.cmdline === 'virtual-anchor lip-sync analysis') {
      sum.analysisChild += own;
      sum.decoder += ended;
    }
  }
  return sum;
}

/** `after − before`, stage by stage. */
export function stageDelta(before: StageCpu, after: StageCpu): StageCpu {
  return {
    host: after.host - before.host,
    frameChild: after.frameChild - before.frameChild,
    encoder: after.encoder - before.encoder,
    analysisChild: after.analysisChild - before.analysisChild,
    decoder: after.decoder - before.decoder,
  };
}
