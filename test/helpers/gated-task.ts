/** A task that runs until `release()`; `log` records its name when it starts (for queue tests). */
export function gated(log: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { release, task: async () => (log.push(name), await done, name) };
}

/** One turn of the event loop: what was ready to run has run. */
export const tick = () => new Promise((resolve) => setImmediate(resolve));
