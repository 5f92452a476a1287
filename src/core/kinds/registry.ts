import type { KindSpec } from './kind-spec.js';
import { avatarVideoKind } from './avatar-video/index.js';
import { separationKind } from './separation/index.js';
import { avatarPrepareKind } from './avatar-prepare/index.js';

/**
 * A table of kind specs keyed by their `kind`: the type checks that every key is its entry's `kind` (an equivalent
 * of `satisfies Record<JobKind, KindSpec>` where the key set is the table itself, so a new kind is one line here).
 */
function kindTable<T extends { [K in keyof T]: KindSpec & { readonly kind: K } }>(table: T): T {
  return table;
}

/** The built-in job kinds: one line each; each kind's folder holds everything about it. */
export const BUILT_IN_KINDS = kindTable({
  avatarVideo: avatarVideoKind,
  separation: separationKind,
  avatarPrepare: avatarPrepareKind,
});

/** The names of the built-in kinds. */
export type BuiltInJobKind = keyof typeof BUILT_IN_KINDS;

/**
 * The job kinds of one instance: the built-in ones, then those of the `jobKinds` option, in that order (routes, the
 * OpenAPI document and the metrics follow it). Built once per instance from its options.
 */
export class KindRegistry {
  readonly #byKind = new Map<string, KindSpec>();

  /** @throws Error naming the problem when two kinds share a name, a collection path, a webhook event type or name, or a metric label. */
  constructor(extra: readonly KindSpec[] = []) {
    const paths = new Map<string, string>();
    const webhooks = new Map<string, string>();
    const labels = new Map<string, string>();
    for (const spec of [...Object.values(BUILT_IN_KINDS), ...extra] as KindSpec[]) {
      if (typeof spec.kind !== 'string' || !/^[A-Za-z][A-Za-z0-9_-]*$/.test(spec.kind)) {
        throw new Error(`a job kind's name must be letters, digits, '-' or '_', starting with a letter; got ${JSON.stringify(spec.kind)}`);
      }
      if (this.#byKind.has(spec.kind)) throw new Error(`two job kinds are named ${spec.kind}`);
      if (typeof spec.run !== 'function') throw new Error(`job kind ${spec.kind} has no run function`);
      if (spec.results !== 'retention' && spec.results !== 'owner') throw new Error(`job kind ${spec.kind}: results must be 'retention' or 'owner'`);
      if (spec.results === 'owner' && typeof spec.resultIds !== 'function') throw new Error(`job kind ${spec.kind}: results kept by their owner need resultIds (fixed blob ids)`);
      if (spec.record === 'kept' && spec.api?.webhook) throw new Error(`job kind ${spec.kind}: a kind whose records are kept sends no webhook`);
      const path = spec.api?.path;
      if (spec.api) {
        if (typeof path !== 'string' || !/^(\/[A-Za-z0-9._~-]+)+$/.test(path)) {
          throw new Error(`job kind ${spec.kind}: api.path must be segments of letters, digits, '.', '_', '~' or '-', each after a '/' (e.g. /v1/echoes); got ${JSON.stringify(path)}`);
        }
        if (typeof spec.api.idName !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(spec.api.idName)) {
          throw new Error(`job kind ${spec.kind}: api.idName must be letters, digits or '_', starting with a letter or '_'; got ${JSON.stringify(spec.api.idName)}`);
        }
      }
      if (path !== undefined) {
        if (paths.has(path)) throw new Error(`job kinds ${paths.get(path)} and ${spec.kind} both serve ${path}`);
        paths.set(path, spec.kind);
      }
      for (const name of spec.api?.webhook ? [spec.api.webhook.type, spec.api.webhook.name] : []) {
        if (webhooks.has(name)) throw new Error(`job kinds ${webhooks.get(name)} and ${spec.kind} both use the webhook name ${name}`);
        webhooks.set(name, spec.kind);
      }
      // One label per kind: the queue depth gauge sets each label once per kind (a shared one would show the last).
      const label = spec.metricLabel ?? spec.kind;
      if (labels.has(label)) throw new Error(`job kinds ${labels.get(label)} and ${spec.kind} both use the metric label ${label}`);
      labels.set(label, spec.kind);
      this.#byKind.set(spec.kind, spec);
    }
  }

  /** Every kind, built-in first. */
  get all(): readonly KindSpec[] {
    return [...this.#byKind.values()];
  }

  /** The kind's spec, or `undefined` for a kind this instance does not know (a record of a removed kind). */
  find(kind: string): KindSpec | undefined {
    return this.#byKind.get(kind);
  }

  /** The kind's spec. @throws Error for a kind this instance does not know. */
  get(kind: string): KindSpec {
    const spec = this.#byKind.get(kind);
    if (!spec) throw new Error(`unknown job kind ${kind}`);
    return spec;
  }
}
