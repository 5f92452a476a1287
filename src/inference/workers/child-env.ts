/**
 * The environment of this package's child processes (see `startChild`): the host's, with the defaults below under
 * it, so that an operator's own setting of one of them wins.
 *
 * `MIMALLOC_ALLOW_THP=0`: the canvas library (`@napi-rs/canvas`) allocates with mimalloc, which by default advises
 * transparent huge pages for its arenas and gives freed memory back to the system after 10 ms. A frame child reads
 * its face canvas back into a fresh buffer every frame (`canvas.data()`, 0.1–0.6 MB); with huge pages each of those
 * buffers that lands in given-back memory faults in, and the kernel zeroes, a whole 2 MB page. Without them it
 * faults in only the 4 KB pages it uses: on a 512×512 job that cut the kernel's share of the drawing from 0.2–0.5
 * to about 0.1 ms a frame. The frames are the same; only mimalloc reads the variable.
 */
export const CHILD_ENV_DEFAULTS: Readonly<Record<string, string>> = Object.freeze({ MIMALLOC_ALLOW_THP: '0' });

/** The environment of a child named `name`: {@link CHILD_ENV_DEFAULTS}, then `parent` over them, then the child's name under `nameKey`. */
export function childEnv(parent: NodeJS.ProcessEnv, nameKey: string, name: string): NodeJS.ProcessEnv {
  return { ...CHILD_ENV_DEFAULTS, ...parent, [nameKey]: name };
}
