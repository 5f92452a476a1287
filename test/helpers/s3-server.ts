import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

/** Credentials the tests sign with (s3rver does not verify signatures). */
export const S3_TEST_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

/** Options for an S3 blob store (or the `s3` option of the middleware) pointing at a test server. */
export interface S3TestStoreOptions {
  bucket: string;
  endpoint: string;
  region: string;
  forcePathStyle: true;
  credentials: typeof S3_TEST_CREDENTIALS;
  prefix?: string;
}

/** A running s3rver: a real S3-protocol server over HTTP on a loopback port, in a process of its own, data in a temp folder. */
export interface S3TestServer {
  endpoint: string;
  port: number;
  bucket: string;
  storeOptions(prefix?: string): S3TestStoreOptions;
  /** Stops the server (data kept), e.g. to test a store that went down. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

const SCRIPT = join(import.meta.dirname, 's3rver-process.mjs');

/**
 * Starts s3rver on a free loopback port in a temp folder, in a child process, and creates a bucket. Fails (never
 * skips) when it cannot start within 20 s.
 */
export async function startS3Server(bucket = 'virtual-anchor-test'): Promise<S3TestServer> {
  const dir = await mkdtemp(join(tmpdir(), 'va-s3rver-'));
  const child = spawn(process.execPath, [SCRIPT, dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = once(child, 'exit');
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('s3rver did not start within 20 s')), 20_000);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code} before listening`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      clearTimeout(timer);
      resolve((JSON.parse(line) as { port: number }).port);
    });
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const storeOptions = (prefix?: string): S3TestStoreOptions => ({
    bucket,
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { ...S3_TEST_CREDENTIALS },
    prefix,
  });
  const client = new S3Client(storeOptions());
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    client.destroy();
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  };
  return {
    endpoint,
    port,
    bucket,
    storeOptions,
    stop,
    async close() {
      await stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
