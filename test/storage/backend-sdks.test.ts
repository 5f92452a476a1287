/**
 * The optional backends' client libraries (@redis/client, bullmq, the AWS SDK's S3 packages) are loaded when a
 * backend that needs one is built, not when the package is imported (src/storage/backend-sdks.ts,
 * src/queue/bullmq-sdk.ts). Checked in a fresh process, whose module cache holds only what importing the package's
 * entry loaded; and the loaders must hand out the very module objects `import` gives, so that an S3 client a host
 * made itself meets the same classes.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { redisSdk, s3Sdk } from '../../src/storage/backend-sdks.js';
import { bullMqSdk } from '../../src/queue/bullmq-sdk.js';
import { LOADED_LIBRARIES_EXPRESSION } from '../helpers/optional-libraries.js';

const exec = promisify(execFile);
const ENTRY = new URL('../../src/index.ts', import.meta.url).href;
/** The optional libraries whose files a fresh process has loaded after importing `entry`. */
async function loadedAfterImport(entry: string): Promise<string[]> {
  const script = `
    import { createRequire } from 'node:module';
    const require = createRequire(import.meta.url);
    await import(${JSON.stringify(entry)});
    console.log(JSON.stringify(${LOADED_LIBRARIES_EXPRESSION}));
  `;
  const { stdout } = await exec(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as string[];
}

describe('optional backends’ client libraries', () => {
  it('importing the package loads none of them', async () => {
    assert.deepEqual(await loadedAfterImport(ENTRY), []);
  });

  it('the check sees a package an import loads; a backend’s own module loads its library only when one is built', async () => {
    assert.deepEqual(await loadedAfterImport('@redis/client'), ['@redis/client']);
    const module = new URL('../../src/storage/redis-connection.ts', import.meta.url).href;
    assert.deepEqual(await loadedAfterImport(module), []);
  });

  it('the loaders hand out the module objects `import` gives', async () => {
    assert.equal(redisSdk().createClient, (await import('@redis/client')).createClient);
    assert.equal(bullMqSdk().Queue, (await import('bullmq')).Queue);
    const s3 = s3Sdk();
    assert.equal(s3.client.S3Client, (await import('@aws-sdk/client-s3')).S3Client);
    assert.equal(s3.storage.Upload, (await import('@aws-sdk/lib-storage')).Upload);
    assert.equal(s3.presigner.getSignedUrl, (await import('@aws-sdk/s3-request-presigner')).getSignedUrl);
  });
});
