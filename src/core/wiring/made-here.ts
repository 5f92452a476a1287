import type { DependencyContainer } from 'tsyringe';

/** Marks the tokens an instance registered on its own container (found again by a later start-up attempt). */
const REGISTERED_HERE = Symbol('virtual-anchor.RegisteredHere');

/**
 * Who owns what in an instance's container. A backend the host gave (in `options.backends`, or registered on
 * `instance.container` before start-up) is the host's: the instance uses it and never closes it. What the instance
 * made is tracked here when its factory runs, and closed by {@link MadeHere.closeAll}, newest first (so a part made
 * from another closes before it). Ownership is decided by who made a value, never by which option was set.
 */
export class MadeHere {
  /** The tokens this instance registered itself (kept across start-up attempts on one container). */
  readonly #registered: Set<symbol>;
  readonly #closers: Array<() => unknown> = [];

  constructor(private readonly container: DependencyContainer) {
    if (!container.isRegistered(REGISTERED_HERE, false)) container.register(REGISTERED_HERE, { useValue: new Set<symbol>() });
    this.#registered = container.resolve<Set<symbol>>(REGISTERED_HERE);
  }

  /** Whether the host registered `token` on the container (a registration of an earlier start-up attempt is not the host's). */
  byHost(token: symbol): boolean {
    return this.container.isRegistered(token, false) && !this.#registered.has(token);
  }

  /** Notes that the instance registers `token` (its value: given in `backends`, or made here). */
  registering(token: symbol): void {
    this.#registered.add(token);
  }

  /** Notes that the instance made `value`, to be closed with `close` when the instance closes; returns `value`. */
  track<T>(value: T, close: (value: T) => unknown): T {
    this.#closers.push(() => close(value));
    return value;
  }

  /** Closes everything made here, newest first; every close runs even when one fails (the first failure is rethrown). */
  async closeAll(): Promise<void> {
    const failures: unknown[] = [];
    for (const close of this.#closers.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  }
}
