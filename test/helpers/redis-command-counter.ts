import { createClient } from '@redis/client';

/** Redis commands that name one namespace, counted from a MONITOR connection while {@link counting} is true. */
export interface RedisCommandCounter {
  /** Whether commands seen now are counted. */
  counting: boolean;
  /** Commands sent by clients (each a round trip), by command name. */
  readonly roundTrips: Map<string, number>;
  /** Commands run inside Lua scripts (no round trip of their own), by command name. */
  readonly inScripts: Map<string, number>;
  /** Forgets what was counted so far. */
  clear(): void;
  close(): Promise<void>;
}

/** Starts counting (see {@link RedisCommandCounter}) the commands on `url` whose line names `namespace`. */
export async function countRedisCommands(url: string, namespace: string): Promise<RedisCommandCounter> {
  const monitor = await createClient({ url }).connect();
  const counter: RedisCommandCounter = {
    counting: true,
    roundTrips: new Map(),
    inScripts: new Map(),
    clear() {
      counter.roundTrips.clear();
      counter.inScripts.clear();
    },
    close: async () => {
      await monitor.close().catch(() => undefined);
    },
  };
  await monitor.monitor((line: string) => {
    if (!counter.counting || !line.includes(namespace)) return;
    // <time> [<db> <client address, or "lua">] "<COMMAND>" …
    const match = /^\S+ \[(\S+) ([^\]]+)\] "(\w+)"/.exec(line);
    if (!match) return;
    const map = match[1] === 'lua' || match[2] === 'lua' ? counter.inScripts : counter.roundTrips;
    const command = match[3]!.toUpperCase();
    map.set(command, (map.get(command) ?? 0) + 1);
  });
  return counter;
}
