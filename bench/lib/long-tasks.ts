import type { ProfileNode, SampledProfile } from './cpu-breakdown.js';

/** One stretch of the main thread's time without a pause for the event loop, and what ran in it. */
export interface LongTask {
  ms: number;
  /**
   * The part of it spent running: its samples × the sampling interval. Far less than `ms` means the process was off
   * the CPU for the rest (the machine ran something else), which no change to this code can shorten.
   */
  cpuMs: number;
  /** The frames that took most of it (see {@link frameOf}), with their share of its samples. */
  frames: { frame: string; share: number }[];
}

/** Where the main thread's time went in its long stretches. */
export interface LongTasks {
  /** Stretches of at least `minMs`, longest first (at most `most`). */
  longest: LongTask[];
  /** Stretches of at least `minMs`, and their total. */
  count: number;
  totalMs: number;
  /** Their total `cpuMs`. */
  totalCpuMs: number;
  /** Over all those stretches: CPU milliseconds per frame (samples × interval), largest first (at most `most`). */
  byFrame: { frame: string; cpuMs: number }[];
  /** The thread's whole CPU time in the profile (every sample that was not idle), and per frame. */
  busyCpuMs: number;
  busyByFrame: { frame: string; cpuMs: number }[];
}

/**
 * Finds the stretches of a profile in which the main thread never went idle (so timers and I/O waited: what the
 * event-loop delay measures) for at least `minMs`, and charges each sample to a frame: the innermost frame of this
 * package (`src/`) or, without one, of a dependency (its package name), else Node's own (`node:…`) or V8's
 * (`(garbage collector)`, `(program)`). `intervalMicros` is the profile's sampling interval.
 */
export function longTasks(profile: SampledProfile, intervalMicros: number, minMs: number, most = 8): LongTasks {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const frames = new Map<number, string>();
  const frameOfSample = (id: number): string => {
    let frame = frames.get(id);
    if (frame === undefined) frames.set(id, (frame = frameOf(id, byId, parent)));
    return frame;
  };
  const stretches: { ms: number; samples: { frame: string }[] }[] = [];
  let current: { ms: number; samples: { frame: string }[] } | undefined;
  const busy = new Map<string, number>();
  let busySamples = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000; // the time until the next sample is this one's
    if (byId.get(id)?.callFrame.functionName === '(idle)') {
      if (current && current.ms >= minMs) stretches.push(current);
      current = undefined;
      return;
    }
    busySamples++;
    busy.set(frameOfSample(id), (busy.get(frameOfSample(id)) ?? 0) + 1);
    current ??= { ms: 0, samples: [] };
    current.ms += ms;
    current.samples.push({ frame: frameOfSample(id) });
  });
  if (current && current.ms >= minMs) stretches.push(current);
  const total = new Map<string, number>();
  const sampleMs = intervalMicros / 1000;
  const longest = stretches
    .sort((a, b) => b.ms - a.ms)
    .map((stretch) => {
      const own = new Map<string, number>();
      for (const { frame } of stretch.samples) {
        own.set(frame, (own.get(frame) ?? 0) + 1);
        total.set(frame, (total.get(frame) ?? 0) + 1);
      }
      const top = [...own].sort((a, b) => b[1] - a[1]).slice(0, 3);
      const count = stretch.samples.length;
      return { ms: round(stretch.ms), cpuMs: round(count * sampleMs), frames: top.map(([frame, n]) => ({ frame, share: round(n / count) })) };
    });
  return {
    longest: longest.slice(0, most),
    count: stretches.length,
    totalMs: round(stretches.reduce((sum, s) => sum + s.ms, 0)),
    totalCpuMs: round(stretches.reduce((sum, s) => sum + s.samples.length, 0) * sampleMs),
    byFrame: [...total].sort((a, b) => b[1] - a[1]).slice(0, most).map(([frame, n]) => ({ frame, cpuMs: round(n * sampleMs) })),
    busyCpuMs: round(busySamples * sampleMs),
    busyByFrame: [...busy].sort((a, b) => b[1] - a[1]).slice(0, most).map(([frame, n]) => ({ frame, cpuMs: round(n * sampleMs) })),
  };
}

function frameOf(id: number, byId: Map<number, ProfileNode>, parent: Map<number, number>): string {
  const leaf = byId.get(id)!;
  let dependency: string | undefined;
  let node: string | undefined;
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const { functionName, url, lineNumber } = byId.get(at)!.callFrame as ProfileNode['callFrame'] & { lineNumber: number };
    const inSource = /\/src\/(.*)$/.exec(url);
    if (inSource && !url.includes('/node_modules/')) return `${functionName || '(anonymous)'} ${inSource[1]}:${lineNumber + 1}`;
    const modulePath = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (modulePath && dependency === undefined) dependency = `${modulePath[1]} (${functionName || 'anonymous'})`;
    if (url.startsWith('node:') && node === undefined) node = `${functionName || '(anonymous)'} ${url}`;
  }
  return dependency ?? node ?? leaf.callFrame.functionName;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
