/**
 * A process that holds one RedisConnection (argv[2] is the URL): it answers a PING, then on a line
 * on stdin sends a command, closes the connection and prints `closed`. Nothing else keeps it alive,
 * so it must exit on its own once closed, whatever the server does after.
 */
import { createInterface } from 'node:readline';
import { RedisConnection } from '../../src/storage/redis-connection.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const connection = new RedisConnection(process.argv[2]!, { connectMs: 500, commandMs: 500 }, silent);
await connection.run('a ping', (client) => client.ping());
console.log('ready');
const lines = createInterface({ input: process.stdin });
lines.once('line', async () => {
  lines.close();
  process.stdin.destroy();
  const outcome = await connection.run('a ping', (client) => client.ping()).then(
    () => 'answered',
    (error: Error) => error.name,
  );
  await connection.close();
  console.log(`closed after ${outcome}`);
});
