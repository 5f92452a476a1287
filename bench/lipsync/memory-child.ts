/**
 * Child process of the lip-sync bench: renders one whole job for the audio given in argv[2] (argv[3] seconds
 * long) at frame size argv[4] (`WIDTHxHEIGHT`) and prints `{ "seconds": …, "maxRssMiB": … }`, so that peak memory
 * is measured for that job alone (the bench samples this process and its ffmpeg from outside).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CanvasLipSyncEngine } from '../../src/inference/lipsync/engine.js';
import { OnnxMouthAnalyzer } from '../../src/inference/lipsync/onnx-mouth-analyzer.js';
import { loadAvatarDefinitions } from '../../src/inference/avatar/catalogue-definitions.js';

const [audioPath, durationText, sizeText = '512x512'] = process.argv.slice(2);
const [width, height] = sizeText.split('x').map(Number) as [number, number];
const work = await mkdtemp(join(tmpdir(), 'va-bench-mem-'));
const [avatar] = await loadAvatarDefinitions();
const engine = new CanvasLipSyncEngine(new OnnxMouthAnalyzer());
const started = performance.now();
await engine.render(
  { audioPath: audioPath!, durationSec: Number(durationText), avatar: avatar!, outputSize: { width, height }, outputPath: join(work, 'out.mp4') },
  { signal: new AbortController().signal, onProgress: () => undefined, workDir: work },
);
const seconds = (performance.now() - started) / 1000;
await rm(work, { recursive: true, force: true });
process.stdout.write(JSON.stringify({ seconds, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
