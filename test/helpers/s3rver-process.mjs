// Runs s3rver in a process of its own (so a test measures its own memory, not the server's) and prints
// `{"port":N}` once it listens. Usage: node s3rver-process.mjs <directory>. Exits on SIGTERM.
import S3rver from 's3rver';

const server = new S3rver({ address: '127.0.0.1', port: 0, directory: process.argv[2], silent: true });
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port })}\n`);
process.on('SIGTERM', () => {
  server.close().then(() => process.exit(0), () => process.exit(1));
});
