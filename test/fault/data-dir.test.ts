/**
 * Fault injection on a shared data dir (issue #10, items 7 and 8): two instances (one on Express, one on
 * Koa) started together on one data dir, and a host killed with SIGKILL in the middle of a job and an
 * upload, whose leftovers the next start must remove without touching a live process's files.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { createVirtualAnchor } from '../../src/index.js';
import { avatarUid } from '../../src/core/avatars/avatar-uid.js';
import { KEYS, makeApp, type TestApp } from '../helpers/apps.js';
import { waitFor } from '../helpers/checks.js';
import { FakeAvatarRenderer, RacingAvatarRenderer, Rendezvous } from '../helpers/engines.js';
import { useHarness } from '../helpers/harness.js';
import { BINARIES } from '../helpers/media.js';
import { slowUpload } from '../helpers/slow-upload.js';

const h = useHarness();
const dirs: string[] = [];
const children: ChildProcess[] = [];
after(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function freshDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** Every avatar of the catalogue as the app lists it. */
async function avatars(app: TestApp): Promise<{ uid: string; thumbnailGenerationStatus: string; [field: string]: unknown }[]> {
  const res = await app.http.get('/v2/avatar?perPage=100').set('key', KEYS.a);
  assert.equal(res.status, 200, res.text);
  return res.body.data as { uid: string; thumbnailGenerationStatus: string; [field: string]: unknown }[];
}

/** Entries of a folder, or none when it does not exist. */
async function entries(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

describe('one data dir, several processes', { timeout: 120_000 }, () => {
  it('two instances started together on one data dir: every avatar completes on both', async () => {
    const dataDir = await freshDir('va-fault-race-');
    const rendezvous = new Rendezvous(2, 2_000);
    const [one, two] = await Promise.all([
      makeApp('express', { dataDir, backends: { avatarRenderer: new RacingAvatarRenderer(rendezvous) } }),
      makeApp('koa', { dataDir, backends: { avatarRenderer: new RacingAvatarRenderer(rendezvous) } }),
    ]);
    try {
      assert.ok(rendezvous.met.size > 0, 'the two instances never rendered the same asset at once: no race was tested');
      const listed = [await avatars(one), await avatars(two)];
      assert.ok(listed[0]!.length >= 1);
      for (const list of listed) {
        assert.deepEqual(
          list.filter((a) => a.thumbnailGenerationStatus !== 'completed'),
          [],
          'an avatar did not complete on one of the instances',
        );
      }
      // Both serve the same stored thumbnail.
      const thumbnail = async (app: TestApp) => {
        const res = await app.http.get(`/v2/avatar/${listed[0]![0]!.uid}`).set('key', KEYS.a);
        assert.equal(res.status, 200, res.text);
        return res.body as Record<string, unknown>;
      };
      assert.deepEqual(Object.keys(await thumbnail(one)).sort(), Object.keys(await thumbnail(two)).sort());
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });

  it('a restart on the same data dir (jobs in memory, files on disk) finds the catalogue\'s assets: nothing is rendered again, every avatar is completed at once', async () => {
    const dataDir = await freshDir('va-fault-restart-');
    const first = new FakeAvatarRenderer();
    const one = await makeApp('express', { dataDir, backends: { avatarRenderer: first } });
    let before: Record<string, unknown>[];
    try {
      assert.ok(first.calls > 0, 'the first start rendered the assets');
      before = await avatars(one);
    } finally {
      await one.close();
    }
    const second = new FakeAvatarRenderer();
    const two = await makeApp('express', { dataDir, backends: { avatarRenderer: second }, skipAvatarWait: true });
    try {
      // Listed before anything could render: the stored assets are the avatars' state.
      const after = await avatars(two);
      assert.deepEqual(
        after.map((a) => [a.uid, a.thumbnailGenerationStatus, a.createdAt, a.updatedAt]),
        before.map((a) => [a.uid, 'completed', a.createdAt, a.updatedAt]),
      );
      await two.instance.avatarsReady();
      assert.equal(second.calls, 0, 'assets rendered once serve every later start');
    } finally {
      await two.close();
    }
  });

  it('a host killed with SIGKILL mid-job and mid-upload: the next start removes its leftovers, not a live process\'s', async () => {
    const dataDir = await freshDir('va-fault-kill-data-');
    // The child's os.tmpdir(), so work folders made there are found (and checked) too.
    const childTmp = await freshDir('va-fault-kill-tmp-');
    const script = fileURLToPath(new URL('./helpers/hung-instance.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', script, dataDir], {
      env: { ...process.env, TMPDIR: childTmp },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const line = await Promise.race([
      new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve)),
      exited.then(() => assert.fail('the host process exited before listening')),
    ]);
    const origin = `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}`;

    const created = await fetch(`${origin}/v2/2davatar`, {
      method: 'POST',
      headers: { key: KEYS.a, 'content-type': 'application/json' },
      body: JSON.stringify({ audioUrl: h.url('speech.mp3'), avatarId: avatarUid('ava') }),
    });
    assert.equal(created.status, 201, await created.text());
    const upload = slowUpload(origin, '/v1/uploads', KEYS.a, await readFile(h.path('speech.mp3')));

    // Job work folders: in the data dir, or (versions before #10) `virtual-anchor-job-*` in the os.tmpdir().
    const work = async () => [
      ...(await entries(join(dataDir, 'work'))).filter((n) => n.startsWith('job-')).map((n) => join(dataDir, 'work', n)),
      ...(await entries(childTmp)).filter((n) => n.startsWith('virtual-anchor-job-')).map((n) => join(childTmp, n)),
    ];
    const staging = async () => (await entries(join(dataDir, 'tmp'))).filter((n) => n.startsWith('put-')).map((n) => join(dataDir, 'tmp', n));
    const leftovers = await waitFor(
      'a job work folder and an upload staging folder',
      async () => {
        const [jobs, uploads] = await Promise.all([work(), staging()]);
        return jobs.length > 0 && uploads.length > 0 ? [...jobs, ...uploads] : undefined;
      },
      20_000,
      50,
    );
    child.kill('SIGKILL');
    await exited;
    upload.finish();
    await upload.response.catch(() => undefined);

    // A process that is alive, with work of its own in the same data dir.
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    children.push(live);
    const host = hostname().replace(/[^A-Za-z0-9.-]/g, '-').slice(0, 64);
    const liveEntries = [join(dataDir, 'work', `job-${live.pid}@${host}~live01`), join(dataDir, 'tmp', `put-${live.pid}@${host}~live02`)];
    for (const dir of liveEntries) await mkdir(dir, { recursive: true });

    const next = createVirtualAnchor({
      apiKeys: [KEYS.a],
      dataDir,
      logger: false,
      ...BINARIES,
      backends: { lipSync: false, separation: false, avatarRenderer: false },
    });
    try {
      await next.ready();
      assert.deepEqual(leftovers.filter((path) => existsSync(path)), [], 'leftovers of the killed process are still there');
      assert.deepEqual(liveEntries.filter((path) => !existsSync(path)), [], 'a live process lost its files');
    } finally {
      await next.close();
      live.kill('SIGKILL');
    }
  });
});
