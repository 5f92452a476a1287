import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { resolveMediaBinaries, type MediaBinaries } from '../../src/inference/media/binaries.js';
import { openVideoEncoder } from '../../src/inference/media/encode-video.js';
import { MediaProcessError } from '../../src/inference/media/errors.js';
import { MediaSpawner } from '../../src/inference/media/media-spawner.js';
import { createHash } from 'node:crypto';
import { ffprobeStreams } from './helpers.js';
import { normalisedGeometry, probeClip } from '../../src/inference/video/clip-probe.js';
import { decodeClip } from '../../src/inference/video/decode-clip.js';
import { clmtrackrClip } from '../video/helpers.js';
import { processInfo, processTree } from '../helpers/processes.js';

let dir: string;
let binaries: MediaBinaries;
const spawner = new MediaSpawner();

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'va-spawner-'));
  binaries = await resolveMediaBinaries();
});
after(async () => {
  spawner.close();
  await rm(dir, { recursive: true, force: true });
});

/** Resolves once process `pid` has gone (or rejects after `ms`). */
async function gone(pid: number, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (processInfo(pid) !== undefined) {
    if (Date.now() > until) throw new Error(`process ${pid} is still running`);
    await sleep(20);
  }
}

/** ffmpeg reading raw frames from stdin for ever (until stdin ends or it is killed), writing nothing. */
const reader = ['-nostdin', '-loglevel', 'error', '-f', 'rawvideo', '-pix_fmt', 'gray', '-video_size', '16x16', '-i', 'pipe:0', '-f', 'null', '-'];

test('through the spawner, ffmpeg is the spawner\'s child, not this process\'s, and encodes the frames written to it', async () => {
  const out = join(dir, 'spawned.mp4');
  const encoder = openVideoEncoder({ width: 64, height: 48, fps: 25, pixelFormat: 'yuv420p', outputPath: out }, binaries, spawner);
  const frame = new Uint8Array((64 * 48 * 3) / 2).fill(128);
  for (let i = 0; i < 25; i++) await encoder.write(frame);
  const spawnerPid = spawner.pid;
  assert.ok(spawnerPid !== undefined);
  assert.equal(processInfo(spawnerPid)?.ppid, process.pid);
  assert.match(processInfo(spawnerPid)?.cmdline ?? '', /media spawner/);
  const ffmpeg = processTree().filter((info) => info.comm.startsWith('ffmpeg'));
  assert.equal(ffmpeg.length, 1);
  assert.equal(ffmpeg[0]!.ppid, spawnerPid);
  await encoder.finish();
  const [video] = await ffprobeStreams(binaries.ffprobePath, out);
  assert.equal(video?.codec_name, 'h264');
  assert.equal(Number(video?.nb_frames), 25);
});

test('a process writing its output to pipe:0 is read whole from the socket handed back, as from its stdout here', async () => {
  const args = (to: string) => ['-nostdin', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=25', '-frames:v', '50', '-f', 'rawvideo', '-pix_fmt', 'yuv420p', to];
  const read = async (stream: AsyncIterable<Buffer>) => {
    const hash = createHash('sha256');
    let bytes = 0;
    for await (const chunk of stream) {
      hash.update(chunk);
      bytes += chunk.length;
    }
    return { bytes, hash: hash.digest('hex') };
  };
  const remote = spawner.spawnWithOutputOnStdin('ffmpeg', binaries.ffmpegPath, args('pipe:0'));
  const stdout = await remote.stdout;
  assert.ok(stdout);
  const got = await read(stdout as AsyncIterable<Buffer>);
  await remote.exited;
  const local = spawn(binaries.ffmpegPath, args('pipe:1'), { stdio: ['ignore', 'pipe', 'inherit'] });
  const expected = await read(local.stdout);
  assert.equal(got.bytes, 50 * 64 * 48 * 1.5);
  assert.deepEqual(got, expected);
});

test('a clip decoded through the spawner gives the frames decoded here, from an ffmpeg below the spawner', async () => {
  const clip = clmtrackrClip();
  const geometry = normalisedGeometry(await probeClip(clip, binaries));
  const hashes = async (through?: MediaSpawner) => {
    const out: string[] = [];
    for await (const frame of decodeClip(clip, { geometry, outputSize: { width: 160, height: 120 }, maxFrames: 40 }, binaries, through)) {
      if (frame.index === 0 && through) {
        const ffmpeg = processTree(through.pid).filter((info) => info.comm.startsWith('ffmpeg'));
        assert.equal(ffmpeg.length, 1, 'the decoder runs below the spawner');
      }
      out.push(createHash('sha256').update(frame.pixels).digest('hex'));
      frame.release();
    }
    return out;
  };
  const here = await hashes();
  assert.equal(here.length, 40);
  assert.deepEqual(await hashes(spawner), here);
  // Stopped early, the decoder is killed and its socket closed: nothing is left below the spawner.
  for await (const frame of decodeClip(clip, { geometry }, binaries, spawner)) {
    frame.release();
    break;
  }
  for (let tries = 0; tries < 100 && processTree(spawner.pid).some((info) => info.comm.startsWith('ffmpeg')); tries++) await sleep(20);
  assert.equal(processTree(spawner.pid).filter((info) => info.comm.startsWith('ffmpeg')).length, 0);
});

test('a binary that cannot start fails with spawnMedia\'s message, and a frame written to it is refused with it', async () => {
  const proc = spawner.spawn('ffmpeg', join(dir, 'no-such-ffmpeg'), []);
  assert.equal(await proc.stdin, undefined);
  await assert.rejects(proc.exited, (error: unknown) => error instanceof MediaProcessError && /^ffmpeg failed: spawn .*no-such-ffmpeg ENOENT/.test(error.message));
  const encoder = openVideoEncoder({ width: 16, height: 16, fps: 25, outputPath: join(dir, 'never.mp4') }, { ...binaries, ffmpegPath: join(dir, 'no-such-ffmpeg') }, spawner);
  await assert.rejects(encoder.write(new Uint8Array(16 * 16 * 4)), /ENOENT/);
});

test('arguments Node refuses to pass on fail that process only: the spawner serves the next one', async () => {
  const pid = (await spawner.spawn('ffmpeg', binaries.ffmpegPath, ['-version']).exited, spawner.pid);
  const refused = spawner.spawn('ffmpeg', binaries.ffmpegPath, ['-i', 'a\0b']);
  assert.equal(await refused.stdin, undefined);
  await assert.rejects(refused.exited, (error: unknown) => error instanceof MediaProcessError && /^ffmpeg failed: .*null bytes/.test(error.message));
  await spawner.spawn('ffmpeg', binaries.ffmpegPath, ['-version']).exited;
  assert.equal(spawner.pid, pid, 'the same spawner');
});

test('an ffmpeg that exits non-zero fails with its code and the last line of its stderr, the secret redacted', async () => {
  const secret = join(dir, 'secret-input.wav');
  const proc = spawner.spawn('ffmpeg', binaries.ffmpegPath, ['-nostdin', '-loglevel', 'error', '-i', secret, '-f', 'null', '-'], { redact: secret });
  await assert.rejects(proc.exited, (error: unknown) => {
    assert.ok(error instanceof MediaProcessError);
    assert.match(error.message, /^ffmpeg exited with code \d+: <input>: No such file or directory$/);
    assert.ok(!error.stderrTail.includes(secret));
    return true;
  });
});

test('kill and an abort signal end the process; it fails as killed', async () => {
  const first = spawner.spawn('ffmpeg', binaries.ffmpegPath, reader);
  assert.ok(await first.stdin);
  first.kill();
  await assert.rejects(first.exited, /ffmpeg was killed \(SIGKILL\)/);
  const controller = new AbortController();
  const second = spawner.spawn('ffmpeg', binaries.ffmpegPath, reader, { signal: controller.signal });
  assert.ok(await second.stdin);
  controller.abort();
  await assert.rejects(second.exited, /ffmpeg was killed \(SIGKILL\)/);
});

test('a spawner that dies fails what it had started, kills it, and the next process starts a new spawner', async () => {
  const proc = spawner.spawn('ffmpeg', binaries.ffmpegPath, reader);
  assert.ok(await proc.stdin);
  const before = spawner.pid!;
  const ffmpeg = processTree(before).find((info) => info.comm.startsWith('ffmpeg'));
  assert.ok(ffmpeg, 'ffmpeg runs below the spawner');
  process.kill(before, 'SIGKILL');
  await assert.rejects(proc.exited, /ffmpeg failed: the media spawner was killed by SIGKILL/);
  await gone(ffmpeg.pid);
  const next = spawner.spawn('ffmpeg', binaries.ffmpegPath, ['-nostdin', '-loglevel', 'error', '-version']);
  await next.exited;
  assert.notEqual(spawner.pid, before);
});

test('when the process that owns the spawner is killed, the spawner and the ffmpeg it started end too', async () => {
  const fixture = fileURLToPath(new URL('../fixtures/spawner-owner.ts', import.meta.url));
  assert.ok(existsSync(fixture));
  const owner = spawn(process.execPath, ['--import', 'tsx', fixture, binaries.ffmpegPath], { stdio: ['ignore', 'pipe', 'inherit'] });
  owner.stdout.setEncoding('utf8');
  let line = '';
  for await (const chunk of owner.stdout) {
    line += chunk;
    if (line.includes('\n')) break;
  }
  const { spawner: spawnerPid, ffmpeg } = JSON.parse(line) as { spawner: number; ffmpeg: number };
  assert.equal(processInfo(ffmpeg)?.ppid, spawnerPid);
  owner.kill('SIGKILL');
  await once(owner, 'exit');
  await gone(spawnerPid);
  await gone(ffmpeg);
});
