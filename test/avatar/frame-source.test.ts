import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { createCanvas } from '@napi-rs/canvas';
import { idlePoseAt } from '../../src/inference/avatar/idle-motion.js';
import type { AvatarDefinition } from '../../src/domain/avatar/definition.js';
import type { MouthShape } from '../../src/inference/lipsync/mouth.js';
import { FrameSource, idleFrameWorkers } from '../../src/inference/render/frame-source.js';
import { builtIns, hashOf } from './helpers.js';
import { probeMedia } from '../../src/inference/media/index.js';
import { BINARIES } from '../helpers/media.js';
import { processTree } from '../helpers/processes.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { FrameRenderer } from '../../src/inference/render/frame-renderer.js';
import { yuv420Bytes } from '../../src/inference/media/raw-video.js';

let amara: AvatarDefinition;
let avatars: AvatarDefinition[];
before(async () => {
  const all = await builtIns();
  amara = all.get('amara')!;
  avatars = [...all.values()];
});

const mouths: MouthShape[] = Array.from({ length: 12 }, (_, i) => ({ open: (i % 4) / 3, width: 0.3, round: i % 3 === 0 ? 1 : 0, closed: i % 5 === 0 ? 1 : 0, teeth: 0 }));

/** Hashes of the frames a source yields, releasing each frame only after it was read. */
async function hashes(source: FrameSource, total: number): Promise<string[]> {
  return hashesOf(source, mouths, total);
}

async function hashesOf(source: FrameSource, track: readonly MouthShape[], total: number): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const frame of source.frames(track, total)) {
      assert.equal(frame.pixels.byteLength, 512 * 512 * 4);
      out.push(hashOf(frame.pixels));
      frame.release();
    }
  } finally {
    await source.close();
  }
  return out;
}

test('a worker thread draws exactly the frames the main thread draws, in order, past the end of the mouth track too', async () => {
  const total = mouths.length + 3;
  const inline = await hashes(FrameSource.open({ definition: amara, thread: 'main' }), total);
  // Two slots: the worker has to wait for released slots many times over.
  const worker = await hashes(FrameSource.open({ definition: amara, thread: 'worker', slots: 2 }), total);
  assert.equal(inline.length, total);
  assert.deepEqual(worker, inline);
  assert.ok(new Set(inline).size > 5, 'frames differ from one another');
});

test('the worker\'s frames equal the main thread\'s over 4.5 s of every avatar, head and body moving, with and without a background image', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'va-frame-source-'));
  try {
    const image = createCanvas(300, 200);
    const ictx = image.getContext('2d');
    ictx.fillStyle = '#2a7';
    ictx.fillRect(0, 0, 300, 200);
    ictx.fillStyle = '#c33';
    ictx.fillRect(100, 50, 100, 100);
    const backgroundPath = join(dir, 'bg.png');
    await writeFile(backgroundPath, await image.encode('png'));
    for (const def of avatars) {
      const total = Math.round(def.fps * 4.5); // longer than a breath (4.2 s)
      const long = Array.from({ length: total }, (_, i) => mouths[i % mouths.length]!);
      // The head and the body both move within these frames, so both kinds of changed rectangle are exercised.
      const moves = (pick: (p: ReturnType<typeof idlePoseAt>) => number) => new Set(Array.from({ length: total }, (_, i) => Math.round(pick(idlePoseAt(def, i))))).size;
      assert.ok(moves((p) => p.headX) > 1 || moves((p) => p.headY - p.breath * 1.2) > 1, `${def.id}: the head moves`);
      assert.ok(moves((p) => -p.breath * 2.6) > 1, `${def.id}: the body moves`);
      for (const bg of def === avatars[0] ? [undefined, backgroundPath] : [undefined]) {
        const inline = await hashesOf(FrameSource.open({ definition: def, backgroundPath: bg, thread: 'main' }), long, total);
        const worker = await hashesOf(FrameSource.open({ definition: def, backgroundPath: bg, slots: 3 }), long, total);
        const first = worker.findIndex((h, i) => h !== inline[i]);
        assert.equal(first, -1, `${def.id}${bg ? ' with background' : ''}: frame ${first} differs`);
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a frame keeps its pixels until released: the worker never draws into a slot still held', async () => {
  const source = FrameSource.open({ definition: amara, slots: 2 });
  const held: { hash: string; pixels: Uint8Array; release: () => void }[] = [];
  try {
    const frames = source.frames(mouths, 6);
    for (let i = 0; i < 2; i++) {
      const { value } = await frames.next();
      held.push({ hash: hashOf(value!.pixels), pixels: value!.pixels, release: value!.release });
    }
    // Both slots held: give the worker time in which it could (wrongly) draw frame 2 over one of them.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const frame of held) assert.equal(hashOf(frame.pixels), frame.hash);
    held[0]!.release();
    const third = await frames.next();
    assert.equal(third.done, false);
    assert.equal(hashOf(held[1]!.pixels), held[1]!.hash, 'the slot still held is untouched');
    await frames.return(undefined);
  } finally {
    await source.close();
  }
});

test('a background that does not decode fails the worker with the reason, and abort stops the frames', async () => {
  for (const thread of ['worker', 'main'] as const) {
    const unready = FrameSource.open({ definition: amara, backgroundPath: '/nonexistent/background.png', thread });
    await assert.rejects(unready.ready(), /ENOENT/, `${thread}: ready() gives the reason`);
    await unready.close();
  }
  const broken = FrameSource.open({ definition: amara, backgroundPath: '/nonexistent/background.png' });
  await assert.rejects(hashes(broken, 3), /drawing frame 0 failed: .*ENOENT/);

  const controller = new AbortController();
  const source = FrameSource.open({ definition: amara });
  let seen = 0;
  await assert.rejects(
    (async () => {
      try {
        for await (const frame of source.frames(mouths, 1000, controller.signal)) {
          frame.release();
          if (++seen === 3) controller.abort(new Error('stop here'));
        }
      } finally {
        await source.close();
      }
    })(),
    /stop here/,
  );
  assert.equal(seen, 3);
});

test('a worker that finished a video draws the next one (no new start-up); one stopped half-way is ended', async () => {
  const first = await hashes(FrameSource.open({ definition: amara }), 4);
  const idle = idleFrameWorkers();
  assert.ok(idle >= 1, 'the worker waits for the next video');
  const source = FrameSource.open({ definition: amara });
  assert.equal(idleFrameWorkers(), idle - 1, 'the next video takes the idle worker');
  assert.deepEqual(await hashes(source, 4), first);
  assert.equal(idleFrameWorkers(), idle);

  const stopped = FrameSource.open({ definition: amara });
  const frames = stopped.frames(mouths, 50);
  await frames.next();
  await frames.return(undefined);
  await stopped.close();
  assert.equal(idleFrameWorkers(), idle - 1, 'a worker stopped half-way does not go back to the pool');
});

test('with an encoder, the worker writes the mp4 itself; a video closed unfinished is stopped, its file removed, and the worker kept', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'va-frame-encode-'));
  try {
    const binaries = { ...BINARIES, source: { ffmpeg: 'option', ffprobe: 'option' } } as const;
    const encoder = (name: string) => ({
      options: { width: amara.width, height: amara.height, fps: amara.fps, outputPath: join(dir, name), preset: 'ultrafast' as const },
      binaries,
    });
    for (const thread of ['worker', 'main'] as const) {
      const source = FrameSource.open({ definition: amara, thread, encoder: encoder(`${thread}.mp4`) });
      const counts: number[] = [];
      try {
        await source.ready();
        if (thread === 'worker') {
          // ffmpeg is started by the worker's media spawner (a fork of the small spawner, not of the worker).
          let tree = processTree();
          for (let tries = 0; tries < 250 && !tree.some((info) => info.comm.startsWith('ffmpeg')); tries++) {
            await sleep(20);
            tree = processTree();
          }
          const ffmpeg = tree.filter((info) => info.comm.startsWith('ffmpeg'));
          assert.equal(ffmpeg.length, 1, 'one ffmpeg');
          const parent = tree.find((info) => info.pid === ffmpeg[0]!.ppid);
          assert.equal(parent?.cmdline, 'virtual-anchor media spawner');
          assert.equal(tree.find((info) => info.pid === parent.ppid)?.cmdline, 'virtual-anchor frame drawing');
          // The canvas's allocator keeps freed memory for a second (the host's environment does not set it here).
          const environ = readFileSync(`/proc/${parent.ppid}/environ`, 'utf8').split('\0');
          assert.equal(process.env.MIMALLOC_PURGE_DELAY, undefined);
          assert.ok(environ.includes('MIMALLOC_PURGE_DELAY=1000'), 'the frame child\'s mimalloc purge delay');
        }
        await source.encode(mouths, 10, undefined, (done) => counts.push(done));
      } finally {
        await source.close();
      }
      // Progress counts the frames in the encoder: from the first, rising, ending at all of them (the worker
      // reports a few times a second, not every frame).
      assert.equal(counts[0], 1, `${thread}: the first frame is reported`);
      assert.equal(counts.at(-1), 10, `${thread}: the last report counts every frame`);
      assert.ok(counts.every((n, i) => i === 0 || n > counts[i - 1]!), `${thread}: progress rises: ${counts.join(', ')}`);
      const probe = await probeMedia(join(dir, `${thread}.mp4`), binaries);
      assert.equal(probe.video?.codec, 'h264', `${thread}: an h264 video`);
    }
    const idle = idleFrameWorkers();
    assert.ok(idle >= 1);
    // The job failed before drawing (e.g. its analysis): close() stops the encoder the worker started.
    const unfinished = FrameSource.open({ definition: amara, encoder: encoder('unfinished.mp4') });
    await unfinished.ready();
    await unfinished.close();
    assert.equal(existsSync(join(dir, 'unfinished.mp4')), false, 'no partial file is left');
    assert.equal(idleFrameWorkers(), idle, 'the worker answered the stop and went back to the pool');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('with an encoder, the worker hands ffmpeg each frame whole before drawing over it: a lossless mp4 holds exactly the frames drawn here', async () => {
  // The worker writes frames from the renderer's own memory (no copy into a slot) and draws the next frame there once
  // ffmpeg's pipe holds the last: a 512×512 yuv420p frame (393 kB) is more than the pipe takes at once, so drawing
  // on before the write ended would change frames on their way to ffmpeg.
  const dir = await mkdtemp(join(tmpdir(), 'va-frame-lossless-'));
  try {
    const binaries = { ...BINARIES, source: { ffmpeg: 'option', ffprobe: 'option' } } as const;
    const { width, height, fps } = amara;
    assert.ok(yuv420Bytes(width, height) > 256 * 1024, 'frames larger than the pipe');
    const track: MouthShape[] = Array.from({ length: 40 }, (_, i) => ({ open: ((Math.sin(i / 2) + 1) / 2) * 0.8, width: (i % 7) / 7, round: (i % 5) / 5, closed: i % 11 === 0 ? 1 : 0, teeth: (i % 3) / 3 }));
    const outputPath = join(dir, 'lossless.mp4');
    const source = FrameSource.open({
      definition: amara,
      encoder: { options: { width, height, fps, outputPath, pixelFormat: 'yuv420p', preset: 'ultrafast', crf: 0 }, binaries },
    });
    try {
      await source.ready();
      await source.encode(track, track.length);
    } finally {
      await source.close();
    }
    const { stdout } = await promisify(execFile)(binaries.ffmpegPath, ['-v', 'error', '-i', outputPath, '-f', 'rawvideo', '-pix_fmt', 'yuv420p', 'pipe:1'], {
      encoding: 'buffer',
      maxBuffer: 64 << 20,
    });
    const bytes = yuv420Bytes(width, height);
    assert.equal(stdout.length, bytes * track.length, 'every frame');
    const renderer = new FrameRenderer(amara);
    const expected = new Uint8Array(bytes);
    for (const [index, mouth] of track.entries()) {
      renderer.renderYuv420Into(index, mouth, expected);
      assert.ok(stdout.subarray(index * bytes, (index + 1) * bytes).equals(expected), `frame ${index} arrived as drawn`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
