import { Session } from 'node:inspector/promises';

/** Which layer a stack frame belongs to: the first rule whose test matches the frame's script URL wins. */
export interface LayerRule {
  layer: string;
  test: RegExp;
}

/** CPU time of one layer, per request. */
export interface LayerShare {
  layer: string;
  /** Share of the process's busy samples (idle excluded), 0..1. */
  share: number;
  /** Microseconds of CPU per request (`share` × the process's CPU time ÷ requests). */
  microsPerRequest: number;
}

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/**
 * Runs `work` under V8's sampling profiler (this process's main thread, one sample per 100 µs) and charges every
 * sample to a layer: the innermost frame of the stack that a rule names (so Node's internals count for the layer
 * that called them: the socket write of an answer for the code that wrote it). A stack that no rule names is
 * `unnamed` (Node's own HTTP parsing and socket handling, timers); the garbage collector is `gc`.
 * `requests` converts shares into microseconds of CPU per request.
 */
export async function cpuBreakdown(
  rules: readonly LayerRule[],
  work: () => Promise<number>,
): Promise<{ requests: number; cpuMicrosPerRequest: number; layers: LayerShare[] }> {
  const cpu = process.cpuUsage();
  const { result: requests, profile } = await profiled(100, work);
  const used = process.cpuUsage(cpu);
  const cpuMicrosPerRequest = (used.user + used.system) / Math.max(1, requests);
  const counts = layerCounts(profile.nodes, profile.samples, rules);
  const busy = [...counts.values()].reduce((sum, count) => sum + count, 0);
  const layers = [...counts]
    .map(([layer, count]) => ({
      layer,
      share: Math.round((count / busy) * 1000) / 1000,
      microsPerRequest: Math.round((count / busy) * cpuMicrosPerRequest * 10) / 10,
    }))
    .sort((a, b) => b.share - a.share);
  return { requests, cpuMicrosPerRequest: Math.round(cpuMicrosPerRequest * 10) / 10, layers };
}

/** What V8's sampling profiler recorded: the call tree, and per sample its leaf node and the time since the last. */
export interface SampledProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Runs `work` under V8's sampling profiler (this process's main thread, one sample per `intervalMicros`). */
export async function profiled<T>(intervalMicros: number, work: () => Promise<T>): Promise<{ result: T; profile: SampledProfile }> {
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: intervalMicros });
    await session.post('Profiler.start');
    const result = await work();
    const { profile } = await session.post('Profiler.stop');
    return { result, profile: { nodes: profile.nodes as ProfileNode[], samples: profile.samples ?? [], timeDeltas: profile.timeDeltas ?? [] } };
  } finally {
    session.disconnect();
  }
}

/** Samples per layer (idle samples left out). */
function layerCounts(nodes: readonly ProfileNode[], samples: readonly number[], rules: readonly LayerRule[]): Map<string, number> {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const layerOf = new Map<number, string | undefined>();
  const resolve = (id: number): string | undefined => {
    if (layerOf.has(id)) return layerOf.get(id);
    const node = byId.get(id)!;
    const name = node.callFrame.functionName;
    let layer: string | undefined;
    if (name === '(garbage collector)') layer = 'gc';
    else if (name === '(idle)' || name === '(program)') layer = name;
    else layer = rules.find((rule) => rule.test.test(node.callFrame.url))?.layer;
    const above = parent.get(id);
    if (layer === undefined && above !== undefined) layer = resolve(above);
    layerOf.set(id, layer);
    return layer;
  };
  const counts = new Map<string, number>();
  for (const id of samples) {
    const layer = resolve(id) ?? 'unnamed';
    if (layer === '(idle)') continue;
    counts.set(layer, (counts.get(layer) ?? 0) + 1);
  }
  return counts;
}
