/**
 * A job kind that exists only in the tests: `echo` copies a submitted recording (POST /v1/echoes { audioUrl }) with
 * a trivial engine, looked up in the instance's container under {@link ECHO_ENGINE}. Everything it is lives in this
 * file and goes to the middleware through the public `jobKinds` option: the test that uses it shows that a kind
 * gets its routes, OpenAPI entries, webhooks, metrics and recovery with no other change.
 */
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { defineKind, type BlobRef, type EngineContext, type Job, type JobInput, type LinkBuilder } from '../../src/index.js';

/** Where the echo engine is registered in an instance's container. */
export const ECHO_ENGINE = Symbol.for('virtual-anchor.test.EchoEngine');

/** The trivial engine: copies its input, unless held (then it waits for `release` or its signal). */
export class EchoEngine {
  runs = 0;
  /** Signals of the runs that started. */
  readonly signals: AbortSignal[] = [];
  private gate?: Promise<void>;
  private open?: () => void;

  /** Holds runs that start from now on (until `release`). */
  hold(): void {
    this.gate = new Promise<void>((resolve) => (this.open = resolve));
  }

  release(): void {
    this.gate = undefined;
    this.open?.();
  }

  async echo(inputPath: string, outputPath: string, context: EngineContext): Promise<void> {
    this.runs++;
    this.signals.push(context.signal);
    context.onProgress({ done: 0, total: 1, unit: 'copies' });
    if (this.gate) {
      await new Promise<void>((resolve, reject) => {
        context.signal.addEventListener('abort', () => reject(context.signal.reason), { once: true });
        void this.gate!.then(resolve);
      });
    }
    await copyFile(inputPath, outputPath);
    context.onProgress({ done: 1, total: 1, unit: 'copies' });
  }
}

interface EchoInput extends JobInput {
  audioUrl: string;
  audio: BlobRef;
}

type EchoJob = Job<'echo', EchoInput, { copy: BlobRef }>;

const createEchoBody = z
  .object({ audioUrl: z.url(), webhookUrl: z.url().optional() })
  .strict()
  .meta({ id: 'CreateEcho' });

const echoCreated = z.object({ uid: z.string(), status: z.string(), createdAt: z.string(), updatedAt: z.string() }).meta({ id: 'EchoCreated' });
const echoView = echoCreated.extend({ path: z.string(), progress: z.number().optional(), errorReason: z.object({ code: z.string(), message: z.string() }).optional() }).meta({ id: 'Echo' });

const created = (job: EchoJob) => ({ uid: job.uid, status: job.status, createdAt: job.createdAt, updatedAt: job.updatedAt });
const listItem = async (job: EchoJob, links: LinkBuilder) => ({ ...created(job), path: await links.link(job.status === 'completed' ? job.result?.copy : undefined, `${job.uid}.wav`) });
async function single(job: EchoJob, links: LinkBuilder) {
  const progress = job.status === 'ongoing' ? { progress: job.progress ? job.progress.done / job.progress.total : 0 } : {};
  const reason = job.status === 'error' && job.failure ? { errorReason: job.failure } : {};
  return { ...(await listItem(job, links)), ...progress, ...reason };
}

/** The `echo` kind: its routes under /v1/echoes, its webhook events `echo.completed` / `echo.error`. */
export const echoKind = defineKind<EchoJob, typeof createEchoBody>({
  kind: 'echo',
  api: {
    path: '/v1/echoes',
    family: 'v1',
    idName: 'echo_id',
    body: createEchoBody,
    notFound: 'echo job',
    doc: { one: 'an echo job', many: 'echo jobs', tag: 'Echo (test)', created: echoCreated, listItem: echoView, single: echoView },
    async create(body, creation) {
      const audio = await creation.input({ url: body.audioUrl, kind: 'audio', field: 'audioUrl' });
      return { input: { audioUrl: body.audioUrl, audio: audio.blob, durationSec: audio.durationSec } };
    },
    created,
    listItem,
    single,
    webhook: {
      type: 'echo',
      name: 'echoEnded',
      summary: 'An echo job reached `completed` or `error`',
      schema: z.object({ type: z.enum(['echo.completed', 'echo.error']), data: echoView }).meta({ id: 'EchoWebhookEvent' }),
    },
  },
  async run(job, context) {
    const engine = context.engine<EchoEngine>(ECHO_ENGINE, 'echo engine');
    const outputPath = join(context.workDir, 'copy.wav');
    await engine.echo(await context.localFile(job.input.audio, 'audio'), outputPath, context);
    return { copy: { path: outputPath, what: 'copy', expected: 'audio', contentType: job.input.audio.contentType } };
  },
  results: 'retention',
  // Safe to run again: a run whose process died is taken over by another process's recovery.
  resumesAfterStop: true,
});
