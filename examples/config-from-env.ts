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
      // Any pino logger works as `logger` (so do console and winston).
      logger: pino({ level: env.LOG_LEVEL ?? 'info' }),
      metrics: env.VIRTUAL_ANCHOR_METRICS === '1',
      // Jobs created with `webhookUrl` announce their end signed with this `whsec_<base64>` secret.
      ...(env.VIRTUAL_ANCHOR_WEBHOOK_SECRET ? { webhooks: { secret: env.VIRTUAL_ANCHOR_WEBHOOK_SECRET } } : {}),
    },
  };
}
