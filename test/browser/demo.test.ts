/**
 * The demo page in a real browser (Debian's Chromium driven by playwright-core): key, avatar, an avatar from a
 * photo and one from a video clip, upload, video job until `completed`, the video plays; a failing job shows its
 * reason; a separation gives two audio players; earlier jobs are a compact list (newest first, a small poster each,
 * 6 a page with previous/next) and only the current job has a player; the page fits a 375 px screen.
 *
 * Needs /usr/bin/chromium (Debian: `apt-get install chromium`), ffmpeg and espeak-ng.
 *
 * The engines are stand-ins (test/browser/engine-doubles.ts) so that this tests the page whatever the
 * state of the built-in engines; the video avatar is prepared by the built-in preparer (a 4 s clip of a real
 * portrait, test/video/helpers.ts). DEMO_TEST_ENGINES=built-in uses the built-in lip-sync and separation
 * instead; allow for their run time. The README's screenshot is taken by scripts/demo-screenshot.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import express from 'express';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { virtualAnchor, type EngineContext, type LipSyncEngine, type LipSyncInput } from '../../src/index.js';
import { VirtualAnchorClient } from '../../src/client/index.js';
import { demoPage } from '../../examples/demo-page.js';
import { buildWeb } from '../../scripts/build-web.js';
import { CHROMIUM, launchChromium } from '../../scripts/chromium.js';
import { resolveMediaBinaries } from '../../src/inference/media/index.js';
import { portraitClip } from '../video/helpers.js';
import { FilterSeparationDouble, ShapeFaceDetectorDouble, StillPhotoRendererDouble, WaveformLipSyncDouble } from './engine-doubles.js';

const KEY = 'demo-test-key';
const builtIn = process.env.DEMO_TEST_ENGINES === 'built-in';
const run = promisify(execFile);
/** Jobs the test makes through the API before the page's own two: one completes, the others fail on purpose. */
const SEEDED_FAILING = 6;
/** Earlier jobs per page of the compact list (web/src/jobs.ts). */
const PER_PAGE = 6;

/** Counts the runs of a lip-sync engine (the stand-in or the built-in one), and those with a photo avatar. */
class CountingLipSync implements LipSyncEngine {
  calls = 0;
  photoCalls = 0;
  constructor(private readonly engine: LipSyncEngine) {}

  render(input: LipSyncInput, context: EngineContext): Promise<void> {
    this.calls++;
    if (input.photo) this.photoCalls++;
    return this.engine.render(input, context);
  }
}

// The callbacks given to page.evaluate() run in the page. The project's TypeScript is set up for Node
// (no DOM library), so this module declares the little of the page they use.
interface Media {
  muted: boolean;
  paused: boolean;
  currentTime: number;
  duration: number;
  readyState: number;
  videoWidth: number;
  error: { message: string } | null;
  play(): Promise<void>;
  pause(): void;
  addEventListener(type: string, listener: () => void, options?: { once?: boolean }): void;
}
interface Picture {
  naturalWidth: number;
  addEventListener(type: string, listener: () => void, options?: { once?: boolean }): void;
}
declare const document: {
  querySelectorAll(selector: string): { length: number };
  getElementById(id: string): unknown;
  activeElement: { blur(): void } | null;
  documentElement: { scrollWidth: number; clientWidth: number };
};
declare const sessionStorage: { getItem(key: string): string | null };
declare const window: { scrollTo(x: number, y: number): void };

/** The built-in lip-sync engine (loaded only for DEMO_TEST_ENGINES=built-in). */
async function builtInLipSync(): Promise<LipSyncEngine> {
  const { CanvasLipSyncEngine, OnnxMouthAnalyzer } = await import('../../src/engines.js');
  return new CanvasLipSyncEngine(new OnnxMouthAnalyzer());
}

async function requireTool(command: string, args: string[], hint: string): Promise<void> {
  try {
    await run(command, args);
  } catch (error) {
    assert.fail(`${command} is needed by the browser test and could not be run (${(error as Error).message.split('\n')[0]}). ${hint}`);
  }
}

/** Waits until a job card shows a final status; fails with the reason the page shows if it is `error`. */
async function untilFinal(job: Locator, timeout: number): Promise<void> {
  await job.and(job.page().locator('.job:is([data-status="completed"], [data-status="error"])')).waitFor({ timeout });
  const status = await job.getAttribute('data-status');
  if (status !== 'completed') assert.fail(`the job ended in ${status}: ${await job.innerText()}`);
}

test('demo page: key, avatar, avatar from a photo and from a video, upload, video job until completed and playing, failure reason, separation, phone width', { timeout: builtIn ? 900_000 : 300_000 }, async (t) => {
  try {
    await access(CHROMIUM);
  } catch {
    assert.fail(`Chromium not found at ${CHROMIUM}: the browser test drives Debian's Chromium. Install it (apt-get install chromium) or set CHROMIUM_PATH.`);
  }
  await requireTool('espeak-ng', ['--version'], 'Install it (apt-get install espeak-ng).');
  await requireTool(process.env.FFMPEG_PATH ?? 'ffmpeg', ['-version'], 'Install it (apt-get install ffmpeg).');

  // Cleanups run last registered first: the browser closes before the folder with its profile is removed.
  const cleanups: (() => Promise<unknown>)[] = [];
  t.after(async () => {
    const failures: unknown[] = [];
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  });
  const work = await mkdtemp(join(tmpdir(), 'virtual-anchor-demo-test-'));
  cleanups.push(() => rm(work, { recursive: true, force: true }));

  // The page, built by the project's build into a private folder, and a speech recording.
  const speech = join(work, 'hello-anchor.wav');
  // A portrait (upright: the detector double finds a face) and a landscape (wide: no face).
  const portrait = join(work, 'my-portrait.png');
  const landscape = join(work, 'landscape.png');
  // A short clip of a real person, upright (the detector double finds a face in its frame at creation).
  const clip = join(work, 'my-clip.mp4');
  const ffmpegPath = process.env.FFMPEG_PATH ?? 'ffmpeg';
  const [root] = await Promise.all([
    buildWeb(join(work, 'page')),
    resolveMediaBinaries().then((binaries) => portraitClip(binaries, clip, { seconds: 4, width: 288, height: 384 })),
    run(ffmpegPath, ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=s=360x480', '-frames:v', '1', portrait]),
    run(ffmpegPath, ['-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=s=640x360', '-frames:v', '1', landscape]),
    run('espeak-ng', ['-s', '150', '-w', speech, 'Hello! I am your virtual anchor. This video was made from a recording uploaded in the browser.']),
  ]);

  // The example's setup in-process: the page at /, then the middleware.
  const lipSync = new CountingLipSync(builtIn ? await builtInLipSync() : new WaveformLipSyncDouble());
  const separation = new FilterSeparationDouble();
  const media = virtualAnchor({
    apiKeys: [KEY],
    dataDir: join(work, 'data'),
    logger: false,
    dangerousFlagDelayMs: 1500,
    // Photo avatars use stand-ins in both modes: the page's flow is what is tested, on a synthetic picture.
    backends: { lipSync, ...(builtIn ? {} : { separation }), faceDetector: new ShapeFaceDetectorDouble(), photoRenderer: new StillPhotoRendererDouble() },
  });
  const app = express();
  app.use(demoPage({ root, buildIfMissing: false }));
  app.use(media);
  const server: Server = createServer(app);
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((ok) => server.close(ok));
    await media.instance.close();
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // Earlier jobs of the key, made through the API (so the page knows neither their label nor their avatar): the
  // oldest completes, the others fail on purpose. With the page's two they make 9: the current one and 8 earlier.
  const api = new VirtualAnchorClient({ baseUrl: base, apiKey: KEY });
  const seeded = (async () => {
    const upload = await api.uploads.create(new Blob([await readFile(speech)], { type: 'audio/wav' }), { fileName: 'seeded.wav' });
    const avatarId = (await api.avatars.list({ perPage: 1 })).data[0]!.uid;
    const completed = await api.avatarVideos.create({ audioUrl: upload.url, avatarId });
    for (let i = 0; i < SEEDED_FAILING; i++) {
      await api.avatarVideos.create({ audioUrl: upload.url, avatarId, dangerousFlag: true });
      await new Promise((ok) => setTimeout(ok, 5)); // distinct createdAt
    }
    const done = await api.avatarVideos.waitForCompletion(completed.uid, { signal: AbortSignal.timeout(builtIn ? 280_000 : 120_000), backoff: { maxMs: 2000 } });
    assert.equal(done.status, 'completed', `the seeded job ended in ${done.status}: ${JSON.stringify(done.errorReason)}`);
  })();
  seeded.catch(() => undefined); // awaited below; a failure meanwhile is not unhandled

  // A real browser with a fresh profile.
  const context: BrowserContext = await launchChromium(join(work, 'profile'), { width: 1100, height: 900 });
  cleanups.push(() => context.close());
  const page: Page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // The refused key (403) and the refused landscape photo (400) are answers the test asks for.
    if (message.type() === 'error' && !/Failed to load resource: the server responded with a status of 40[03]/.test(message.text())) {
      problems.push(`console error: ${message.text()}`);
    }
  });
  const remote = new Set<string>();
  const uploads: { key?: string }[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(base) && !request.url().startsWith('data:')) remote.add(request.url());
    if (request.method() === 'POST' && request.url() === `${base}/v1/uploads`) uploads.push({ key: request.headers()['key'] });
  });

  await page.goto(base);
  await assert.doesNotReject(page.getByRole('heading', { name: /Virtual Anchor/ }).waitFor());

  // A wrong key is refused with the service's answer; the right one opens the workspace.
  const keyField = page.getByLabel('API key', { exact: true });
  await keyField.fill('not-the-key');
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.locator('#key-status[data-tone="error"]').waitFor();
  assert.match(await page.locator('#key-status').innerText(), /did not accept this API key/);
  assert.equal(await page.locator('#workspace').isVisible(), false);

  await keyField.fill(KEY);
  await keyField.press('Enter');
  await page.locator('#key-status[data-tone="ok"]').waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('virtual-anchor-demo:key')), KEY);

  // The catalogue: wait until every avatar has its thumbnail (generated in the background at start).
  const cards = page.locator('.avatar');
  await page.waitForFunction(() => {
    const all = document.querySelectorAll('.avatar');
    return all.length > 0 && document.querySelectorAll('.avatar img').length === all.length;
  }, undefined, { timeout: 120_000 });
  const names = await cards.locator('.avatar-name').allInnerTexts();
  assert.ok(names.length >= 2, `the catalogue lists avatars: ${names.join(', ')}`);

  // Pick by clicking the card; the preview shows that avatar. Arrow keys move the selection.
  await cards.nth(0).locator('label').click();
  assert.equal(await page.getByRole('radio', { name: names[0] }).isChecked(), true);
  await page.locator('#avatar-preview').waitFor();
  assert.equal(await page.locator('#avatar-preview-name').innerText(), names[0]);
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.getByRole('radio', { name: names[1] }).isChecked(), true);
  assert.equal(await page.locator('#avatar-preview-name').innerText(), names[1]);
  await page.waitForFunction(() => (document.getElementById('avatar-preview-video') as Media).readyState >= 1);

  // Create an avatar from a photo: a landscape is refused with the service's reason; a portrait is prepared,
  // previewed, and selected in the picker for the next video.
  await page.locator('summary', { hasText: 'Create an avatar from a photo' }).click();
  await page.getByLabel('Photo or video').setInputFiles(landscape);
  await page.getByRole('button', { name: 'Create avatar' }).click();
  await page.locator('#photo-status[data-tone="error"]').waitFor({ timeout: 30_000 });
  assert.match(await page.locator('#photo-status').innerText(), /no face/);
  await page.getByLabel('Photo or video').setInputFiles(portrait);
  await page.getByLabel('Name (optional)').fill('My portrait');
  await page.getByRole('button', { name: 'Create avatar' }).click();
  await page.locator('#photo-status[data-tone="ok"]').waitFor({ timeout: 60_000 });
  assert.match(await page.locator('#photo-status').innerText(), /My portrait is ready/);
  const photoPreview = page.getByRole('img', { name: 'Preview of My portrait' }).first();
  assert.match((await photoPreview.getAttribute('src')) ?? '', /\/files\//);
  await page.waitForFunction(() => (document.getElementById('photo-preview-image') as { naturalWidth: number }).naturalWidth > 0);
  assert.equal(await page.getByRole('radio', { name: 'My portrait' }).isChecked(), true);
  assert.equal(await page.locator('#avatar-preview-name').innerText(), 'My portrait');
  assert.equal(await cards.count(), names.length + 1, 'the photo avatar is listed with the catalogue');

  // Create an avatar from a video clip: prepared by the built-in preparer, previewed, listed and selected; its
  // prepared clip plays in the picker's preview.
  await page.getByLabel('Photo or video').setInputFiles(clip);
  await page.getByLabel('Name (optional)').fill('My clip');
  await page.getByRole('button', { name: 'Create avatar' }).click();
  await page.locator('#photo-status[data-tone="ok"]').waitFor({ timeout: 120_000 });
  assert.match(await page.locator('#photo-status').innerText(), /My clip is ready/);
  await page.waitForFunction(() => (document.getElementById('photo-preview-image') as { naturalWidth: number }).naturalWidth > 0);
  assert.equal(await page.getByRole('img', { name: 'Preview of My clip' }).count(), 1);
  assert.equal(await page.getByRole('radio', { name: 'My clip' }).isChecked(), true);
  assert.equal(await page.locator('#avatar-preview-name').innerText(), 'My clip');
  assert.equal(await cards.count(), names.length + 2, 'the video avatar is listed too');
  const clipPreview = await page.locator('#avatar-preview-video').evaluate((element: Media) =>
    element.readyState >= 1 ? { width: element.videoWidth, duration: element.duration } : new Promise<{ width: number; duration: number }>((ok, fail) => {
      element.addEventListener('loadedmetadata', () => ok({ width: element.videoWidth, duration: element.duration }), { once: true });
      element.addEventListener('error', () => fail(new Error(element.error?.message)), { once: true });
    }),
  );
  assert.equal(clipPreview.width, 288, `the picker previews the prepared clip at its size: ${JSON.stringify(clipPreview)}`);
  assert.ok(clipPreview.duration > 1, `the prepared clip is a loop of the clip: ${JSON.stringify(clipPreview)}`);
  // The video below is made with the photo avatar: pick it again.
  await cards.filter({ hasText: 'My portrait' }).locator('label').click();
  assert.equal(await page.getByRole('radio', { name: 'My portrait' }).isChecked(), true);
  assert.equal(await page.locator('#avatar-preview-name').innerText(), 'My portrait');
  const chosen = 'My portrait';

  // A job that fails on purpose shows the reason the service gives.
  await seeded;
  const callsBefore = lipSync.calls;
  assert.equal(callsBefore, 1, 'the seeded job that completes ran the engine once');
  await page.getByLabel('Upload a recording').first().setInputFiles(speech);
  await page.locator('summary', { hasText: 'More options' }).click();
  await page.getByLabel('Fail on purpose').check();
  await page.getByRole('button', { name: 'Create video' }).click();
  // The page's own job, not a seeded one that failed before (the newest of those may be the full card until this one comes).
  const failed = page.locator('#video-jobs .job[data-status="error"]').filter({ hasText: `${chosen} · hello-anchor.wav` });
  await failed.waitFor({ timeout: 30_000 });
  assert.match(await failed.locator('.job-error').innerText(), /dangerousFlag/);
  assert.equal(await failed.locator('.job-error code').textContent(), 'dangerous_flag');
  assert.equal(lipSync.calls, callsBefore, 'a dangerousFlag job runs no engine');
  if (builtIn) t.diagnostic('DEMO_TEST_ENGINES=built-in: the built-in engines make the video and the stems');

  // The real thing: upload the recording, create the job, wait for `completed`.
  await page.getByLabel('Fail on purpose').uncheck();
  await page.locator('summary', { hasText: 'More options' }).click();
  const started = Date.now();
  await page.getByRole('button', { name: 'Create video' }).click();
  await page.locator('#video-status[data-tone="ok"]').waitFor({ timeout: 30_000 });
  const job = page.locator('#video-jobs .job').first();
  assert.match(await job.locator('.job-title').innerText(), new RegExp(`${chosen} · hello-anchor\\.wav`));
  const engineMs = builtIn ? 280_000 : 120_000;
  await untilFinal(job, engineMs);
  t.diagnostic(`video job completed ${Date.now() - started} ms after clicking Create video`);
  assert.equal(lipSync.calls, callsBefore + 1, 'the job ran the lip-sync engine once');
  assert.equal(lipSync.photoCalls, 1, 'the video was made with the photo avatar');
  // The new job is the current one (the only full card); the failed one moved to the compact list.
  assert.equal(await page.locator('#video-jobs .job').count(), 1);
  const movedDown = page.locator('#video-earlier .earlier-job').first();
  assert.match(await movedDown.locator('.job-title').innerText(), new RegExp(`${chosen} · hello-anchor\\.wav`));
  assert.equal(await movedDown.getAttribute('data-status'), 'error');
  assert.deepEqual(uploads, [{ key: KEY }, { key: KEY }], 'each job uploaded the recording with POST /v1/uploads and the key header');
  assert.equal(await job.getAttribute('data-status'), 'completed');
  assert.equal(await job.locator('.badge').textContent(), 'Completed');

  // The video plays: H.264 + AAC decodes in this Chromium and currentTime advances.
  const video = job.locator('video');
  const playback = await video.evaluate(async (element: Media) => {
    element.muted = true;
    await element.play();
    const start = element.currentTime;
    // Playing advances currentTime; a loaded machine decodes slower than real time, so wait for it up to 15 s.
    const deadline = Date.now() + 15_000;
    while (element.currentTime - start <= 0.5 && Date.now() < deadline) await new Promise((ok) => setTimeout(ok, 50));
    return { start, now: element.currentTime, duration: element.duration, width: element.videoWidth, error: element.error?.message ?? null };
  });
  t.diagnostic(`playback: ${JSON.stringify(playback)}`);
  assert.equal(playback.error, null);
  assert.ok(playback.width > 0, 'the video has a decoded picture');
  assert.ok(playback.duration > 3, `the video lasts as long as the speech (${playback.duration} s)`);
  assert.ok(playback.now - playback.start > 0.5, `currentTime advances while playing (${playback.start} → ${playback.now})`);
  const download = await job.getByRole('link', { name: 'Download mp4' }).getAttribute('href');
  assert.match(download ?? '', /\/files\//);

  // Source separation: upload, status, two audio players with download links.
  await page.getByLabel('Upload a recording').nth(1).setInputFiles(speech);
  await page.getByRole('button', { name: 'Separate' }).click();
  const split = page.locator('#separation-jobs .job').first();
  await untilFinal(split, engineMs);
  assert.equal(await split.locator('audio').count(), 2);
  for (const name of ['Speech', 'Ambience']) {
    const audio = split.getByLabel(`${name} of the separation`);
    await audio.evaluate((element: Media) =>
      element.readyState >= 1 ? undefined : new Promise<void>((ok, fail) => {
        element.addEventListener('loadedmetadata', () => ok(), { once: true });
        element.addEventListener('error', () => fail(new Error(element.error?.message)), { once: true });
      }),
    );
    assert.ok(await split.getByRole('link', { name: `Download ${name.toLowerCase()}` }).getAttribute('href'));
  }

  // Reload: the key is kept in this tab and the jobs come back from the API's lists.
  await page.reload();
  await page.locator('#video-jobs .job[data-status="completed"]').waitFor();
  assert.equal(await page.locator('#separation-jobs .job').count(), 1);
  assert.equal(await page.locator('#separation-earlier').isVisible(), false, 'one separation: no earlier ones');

  // Videos: the newest is the current job, the only one with a player; the 8 earlier ones are a compact list,
  // newest first (the API's order), 6 a page.
  const newestFirst = (await api.avatarVideos.list({ perPage: 100 })).data.map((v) => v.uid);
  assert.equal(newestFirst.length, SEEDED_FAILING + 3);
  const earlier = newestFirst.slice(1);
  assert.equal(await page.locator('#video-jobs .job').count(), 1);
  assert.equal(await page.locator('#video-jobs .job').getAttribute('data-uid'), newestFirst[0]);
  assert.equal(await page.locator('#video-jobs video').count(), 1);
  const compact = page.locator('#video-earlier .earlier-job');
  const shownUids = () => compact.evaluateAll((items) => items.map((item) => (item as unknown as { dataset: { uid: string } }).dataset.uid));
  assert.match(await page.locator('#video-earlier .earlier-title').innerText(), /Earlier videos \(8\)/);
  assert.deepEqual(await shownUids(), earlier.slice(0, PER_PAGE), 'page 1: the 6 newest earlier jobs, newest first');
  assert.equal(await page.locator('#video-earlier video[controls], #video-earlier audio').count(), 0, 'no player in the compact list');
  const previous = page.getByRole('button', { name: 'Previous' });
  const next = page.getByRole('button', { name: 'Next' });
  assert.equal(await page.locator('#video-earlier .page-status').innerText(), 'Page 1 of 2');
  assert.equal(await previous.isDisabled(), true);
  assert.equal(await next.isDisabled(), false);

  // Made in this tab: the page's failed job, titled, with its avatar's thumbnail as poster. Seeded through the API:
  // a placeholder (a failed job has no video, and the page does not know its avatar).
  const mine = compact.first();
  assert.match(await mine.locator('.job-title').innerText(), new RegExp(`${chosen} · hello-anchor\\.wav`));
  assert.equal(await mine.getAttribute('data-status'), 'error');
  const thumbnail = mine.locator('.earlier-poster img');
  assert.match((await thumbnail.getAttribute('src')) ?? '', /\/files\//);
  await thumbnail.evaluate((img: Picture) => (img.naturalWidth > 0 ? undefined : new Promise<void>((ok) => img.addEventListener('load', () => ok(), { once: true }))));
  assert.equal(await compact.nth(1).locator('.poster-placeholder').count(), 1);
  assert.equal(await compact.nth(1).getByRole('link').count(), 0, 'a failed job has nothing to play');

  // Next: the 2 oldest, the seeded job that completed last of all, its poster the video's first frame and a link to play it.
  await next.click();
  assert.deepEqual(await shownUids(), earlier.slice(PER_PAGE));
  assert.equal(await page.locator('#video-earlier .page-status').innerText(), 'Page 2 of 2');
  assert.equal(await next.isDisabled(), true);
  assert.equal(await previous.isDisabled(), false);
  const oldest = compact.last();
  assert.equal(await oldest.getAttribute('data-status'), 'completed');
  const frame = await oldest.locator('.earlier-poster video').evaluate((element: Media) =>
    element.readyState >= 2 ? element.videoWidth : new Promise<number>((ok, fail) => {
      element.addEventListener('loadeddata', () => ok(element.videoWidth), { once: true });
      element.addEventListener('error', () => fail(new Error(element.error?.message)), { once: true });
    }),
  );
  assert.ok(frame > 0, 'the poster shows the video\'s first frame');
  const play = oldest.getByRole('link', { name: /^Play Video [0-9a-f]{8} \(opens in a new tab\)$/ });
  assert.match((await play.getAttribute('href')) ?? '', /\/files\//);
  assert.equal(await play.getAttribute('target'), '_blank');
  assert.match((await oldest.getByRole('link', { name: /^Download Video / }).getAttribute('href')) ?? '', /\/files\//);
  await previous.click();
  assert.deepEqual(await shownUids(), earlier.slice(0, PER_PAGE), 'Previous goes back to page 1');

  // Phone width: nothing overflows sideways.
  await page.setViewportSize({ width: 375, height: 812 });
  await page.evaluate(() => window.scrollTo(0, 0));
  const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  assert.ok(widths.scroll <= widths.client, `no horizontal scrolling at 375 px (${widths.scroll} > ${widths.client})`);

  assert.deepEqual([...remote], [], 'the page loads nothing from other hosts');
  assert.deepEqual(problems, [], 'no script errors in the page');
});
