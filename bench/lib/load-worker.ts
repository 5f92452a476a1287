/**
 * Child process running {@link runLoad}, so the load generator and the server under test do not share one
 * event loop (as with autocannon). Each IPC message is a {@link LoadOptions}; each answer a {@link LoadResult}
 * (or `{ error }`). Exits when the parent disconnects.
 */
import { runLoad, type LoadOptions } from './load.js';

process.on('message', (options: LoadOptions) => {
  runLoad(options).then(
    (result) => process.send!(result),
    (error: unknown) => process.send!({ error: String((error as Error)?.stack ?? error) }),
  );
});
process.on('disconnect', () => process.exit(0));
