import type { VirtualAnchorOptions } from '../src/index.js';
import { randomBytes } from 'node:crypto';
import pino from 'pino';

/** The example servers' operator contract: options from environment variables (see README). */
export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): { options: VirtualAnchorOptions; port: number; devKey?: string } {
  const keys = (env.VIRTUAL_ANCHOR_API_KEYS ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  const devKey = keys.length === 0 ? `dev-${randomBytes(12).toString('hex')}` : undefined;
  return {
    port: Number(env.PORT ?? 3000),
    devKey,
    options: {
      apiKeys: devKey ? [devKey] : keys,
      dataDir: env.VIRTUAL_ANCHOR_DATA_DIR ?? './.virtual-anchor',
      publicUrl: env.VIRTUAL_ANCHOR_PUBLIC_URL || undefined,
      allowPrivateUrls: env.VIRTUAL_ANCHOR_ALLOW_PRIVATE_URLS === '1',
      redis: env.REDIS_URL || undefined,
      redisNamespace: env.VIRTUAL_ANCHOR_REDIS_NAMESPACE || undefined,
      // all (default), api or worker; api and worker need REDIS_URL. A worker still listens on PORT, for /healthz and /readyz.
      role: roleFrom(env.VIRTUAL_ANCHOR_ROLE),
      s3: s3FromEnv(env),
      // Any pino logger works as `logger` (so do console and winston).
      logger: pino({ level: env.LOG_LEVEL ?? 'info' }),
      metrics: env.VIRTUAL_ANCHOR_METRICS === '1',
      // Jobs created with `webhookUrl` announce their end signed with this `whsec_<base64>` secret.
      ...(env.VIRTUAL_ANCHOR_WEBHOOK_SECRET ? { webhooks: { secret: env.VIRTUAL_ANCHOR_WEBHOOK_SECRET } } : {}),
    },
  };
}

/** VIRTUAL_ANCHOR_ROLE, checked (the options validation names a wrong one too, but this names the variable). */
function roleFrom(value: string | undefined): VirtualAnchorOptions['role'] {
  if (!value) return undefined;
  if (value === 'all' || value === 'api' || value === 'worker') return value;
  throw new Error(`VIRTUAL_ANCHOR_ROLE must be all, api or worker, not ${JSON.stringify(value)}`);
}

/**
 * Blobs in S3 when `VIRTUAL_ANCHOR_S3_BUCKET` is set: `VIRTUAL_ANCHOR_S3_ENDPOINT` (an S3-compatible store; default AWS),
 * `VIRTUAL_ANCHOR_S3_REGION`, `VIRTUAL_ANCHOR_S3_PREFIX`, `VIRTUAL_ANCHOR_S3_FORCE_PATH_STYLE=1`; credentials from the
 * AWS SDK's default chain (`AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`, a profile, an instance role).
 */
function s3FromEnv(env: NodeJS.ProcessEnv): VirtualAnchorOptions['s3'] {
  const bucket = env.VIRTUAL_ANCHOR_S3_BUCKET;
  if (!bucket) return undefined;
  return {
    bucket,
    endpoint: env.VIRTUAL_ANCHOR_S3_ENDPOINT || undefined,
    region: env.VIRTUAL_ANCHOR_S3_REGION || undefined,
    prefix: env.VIRTUAL_ANCHOR_S3_PREFIX || undefined,
    forcePathStyle: env.VIRTUAL_ANCHOR_S3_FORCE_PATH_STYLE === '1',
  };
}
