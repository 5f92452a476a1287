/**
 * Retakes the README's screenshots of the demo page with the built-in engines: starts the Express example server
 * (examples/express-server.ts, the engines `npm start` runs) on a free port with a private data folder, drives
 * Debian's Chromium with playwright-core through the page as a visitor would: connects with the key, creates a photo
 * avatar from a bundled portrait, makes a video of it and then one of the bundled avatar Ava from a real speech
 * recording, waits until both are completed, and saves
 *
 *   docs/demo.png          the whole page, 1280 px wide: photo avatar section open, Ava's video paused on a frame
 *                          with speech in it, the photo avatar's video in the compact list of earlier videos
 *   docs/demo-mobile.png   the top of the page at 375×812
 *
 *   tsx scripts/demo-screenshot.ts [--out DIR]
 *
 * Needs /usr/bin/chromium (or CHROMIUM_PATH) and ffmpeg, like the browser test. The engines run on the CPU: allow
 * a few minutes.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Locator } from 'playwright-core';
import { buildWebIfChanged } from './build-web.js';
import { CHROMIUM, launchChromium } from './chromium.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const KEY = 'demo-screenshot-key';
/** A public-domain portrait (test/fixtures/faces/README.md) and four spoken prompts (test/fixtures/lipsync/README.md). */
const PORTRAIT = join(ROOT, 'test', 'fixtures', 'faces', 'grace_hopper.jpg');
const SPEECH = join(ROOT, 'test', 'fixtures', 'lipsync', 'real-speech.wav');
const PHOTO_NAME = 'Grace';
const BUNDLED = 'Ava';
/** How long one video may take on a slow machine's CPU. */
const JOB_TIMEOUT_MS = 10 * 60_000;

// The callbacks given to evaluate() run in the page; the project's TypeScript has no DOM library.
interface Media {
  muted: boolean;
  currentTime: number;
  readyState: number;
  play(): Promise<void>;
  pause(): void;
  addEventListener(type: string, listener: () => void, options?: { once?: boolean }): void;
}

function log(text: string): void {
  console.log(`[demo-screenshot] ${text}`);
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** Starts the Express example and resolves once it listens; the returned function stops it. */
async function startExample(port: number, dataDir: string): Promise<{ stop: () => Promise<void>; output: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'examples', 'express-server.ts')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), VIRTUAL_ANCHOR_API_KEYS: KEY, VIRTUAL_ANCHOR_DATA_DIR: dataDir, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  const exited = once(child, 'exit');
  await Promise.race([
    new Promise<void>((ok) => {
      const check = () => (output.includes('listening on') ? ok() : setTimeout(check, 100));
      check();
    }),
    exited.then(([code]) => Promise.reject(new Error(`the example server exited (${String(code)}) before listening:\n${output}`))),
  ]);
  return {
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM'); // the example closes the instance and exits (examples/serve.ts)
      await exited;
    },
  };
}

/** Waits until a job card shows a final status; throws with the card's text unless it is `completed`. */
async function untilCompleted(job: Locator): Promise<void> {
  await job.and(job.page().locator(':is(.job, .earlier-job):is([data-status="completed"], [data-status="error"])')).waitFor({ timeout: JOB_TIMEOUT_MS });
  if ((await job.getAttribute('data-status')) !== 'completed') throw new Error(`the job ended in error: ${await job.innerText()}`);
}

async function main(): Promise<void> {
  const outIndex = process.argv.indexOf('--out');
  const out = outIndex > 0 ? resolve(process.argv[outIndex + 1] ?? '.') : join(ROOT, 'docs');
  await stat(CHROMIUM).catch(() => {
    throw new Error(`Chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  });
  const built = await buildWebIfChanged();
  log(built.built ? `demo page built (${built.reason})` : 'demo page up to date');

  const work = await mkdtemp(join(tmpdir(), 'virtual-anchor-screenshot-'));
  // Undone last registered first: the browser closes before the server stops, both before the folder goes.
  const cleanups: (() => Promise<unknown>)[] = [() => rm(work, { recursive: true, force: true })];
  let server: Awaited<ReturnType<typeof startExample>> | undefined;
  try {
    const port = await freePort();
    server = await startExample(port, join(work, 'data'));
    cleanups.push(server.stop);
    const base = `http://127.0.0.1:${port}`;
    log(`example server (built-in engines) at ${base}`);

    const context = await launchChromium(join(work, 'profile'), { width: 1280, height: 900 });
    cleanups.push(() => context.close());
    const page = context.pages()[0] ?? (await context.newPage());
    page.on('pageerror', (error) => log(`page error: ${error.message}`));

    await page.goto(base);
    await page.getByLabel('API key', { exact: true }).fill(KEY);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.locator('#key-status[data-tone="ok"]').waitFor();
    // Every catalogue avatar has its thumbnail (made in the background when the server starts).
    await page.waitForFunction(
      () => {
        const doc = (globalThis as unknown as { document: { querySelectorAll(selector: string): { length: number } } }).document;
        const all = doc.querySelectorAll('.avatar').length;
        return all > 0 && doc.querySelectorAll('.avatar img').length === all;
      },
      undefined,
      { timeout: 180_000 },
    );

    log(`photo avatar from ${relative(ROOT, PORTRAIT)}…`);
    await page.locator('summary', { hasText: 'Create an avatar from a photo' }).click();
    await page.getByLabel('Photo or video').setInputFiles(PORTRAIT);
    await page.getByLabel('Name (optional)').fill(PHOTO_NAME);
    await page.getByRole('button', { name: 'Create avatar' }).click();
    await page.locator('#photo-status[data-tone="ok"], #photo-status[data-tone="error"]').waitFor({ timeout: JOB_TIMEOUT_MS });
    if ((await page.locator('#photo-status').getAttribute('data-tone')) !== 'ok') throw new Error(`photo avatar: ${await page.locator('#photo-status').innerText()}`);

    // Two videos from the same recording: the photo avatar's (then an earlier video), and the bundled avatar's.
    const speech = page.getByLabel('Upload a recording').first();
    for (const avatar of [PHOTO_NAME, BUNDLED]) {
      log(`video of ${avatar}…`);
      const started = Date.now();
      await page.locator('.avatar label', { hasText: avatar }).click();
      await speech.setInputFiles(SPEECH);
      await page.getByRole('button', { name: 'Create video' }).click();
      await page.locator('#video-status[data-tone="ok"]').waitFor({ timeout: 60_000 });
      const job = page.locator('#video-jobs .job').first();
      await job.locator('.job-title', { hasText: avatar }).waitFor();
      await untilCompleted(job);
      log(`video of ${avatar} completed in ${Math.round((Date.now() - started) / 1000)} s`);
    }

    // The finished video paused on a frame with speech in it: played (not seeked), so the frame is buffered and no
    // loading spinner is drawn; the idle loop of the preview paused; the earlier video's poster loaded.
    await page.locator('#video-jobs .job video').evaluate(async (element: Media) => {
      element.muted = true;
      await element.play();
      while (element.currentTime < 2.2) await new Promise((ok) => setTimeout(ok, 20));
      element.pause();
    });
    await page.locator('#avatar-preview-video').evaluate(async (element: Media) => {
      element.pause();
      if (element.readyState < 2) await new Promise<void>((ok) => element.addEventListener('loadeddata', () => ok(), { once: true }));
    });
    await page.locator('#video-earlier .earlier-poster img').first().evaluate((img: { complete: boolean; addEventListener: Media['addEventListener'] }) =>
      img.complete ? undefined : new Promise<void>((ok) => img.addEventListener('load', () => ok(), { once: true })),
    );
    await page.locator('#photo-preview-image').evaluate((img: { complete: boolean; addEventListener: Media['addEventListener'] }) =>
      img.complete ? undefined : new Promise<void>((ok) => img.addEventListener('load', () => ok(), { once: true })),
    );
    await page.mouse.move(0, 0);
    await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { blur(): void } | null } }).document.activeElement?.blur());

    await mkdir(out, { recursive: true });
    const desktop = join(out, 'demo.png');
    await page.screenshot({ path: desktop, fullPage: true });
    await page.setViewportSize({ width: 375, height: 812 });
    await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
    const mobile = join(out, 'demo-mobile.png');
    await page.screenshot({ path: mobile, fullPage: false });
    for (const file of [desktop, mobile]) log(`saved ${relative(process.cwd(), file)} (${Math.round((await stat(file)).size / 1024)} KiB)`);
  } catch (error) {
    if (server) console.error(`example server output:\n${server.output()}`);
    throw error;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => console.error(error));
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
