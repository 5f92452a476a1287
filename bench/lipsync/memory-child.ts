/**
 * Child process of the lip-sync bench: renders one whole job for the audio given in argv[2] and prints
 * `{ "seconds": …, "maxRssMiB": … }`, so peak memory is measured for that job alone.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CanvasLipSyncEngine } from '../../src/inference/lipsync/engine.js';
import { OnnxMouthAnalyzer } from '../../src/inference/lipsync/onnx-mouth-analyzer.js';
import { loadAvatarDefinitions } from '../../src/inference/avatar/catalogue-definitions.js';

const [audioPath, durationText] = process.argv.slice(2);
const work = await mkdtemp(join(tmpdir(), 'va-bench-mem-'));
const [avatar] = await loadAvatarDefinitions();
const engine = new CanvasLipSyncEngine(new OnnxMouthAnalyzer());
const started = performance.now();
await engine.render(
  { audioPath: audioPath!, durationSec: Number(durationText), avatar: avatar!, outputPath: join(work, 'out.mp4') },
  { signal: new AbortController().signal, onProgress: () => undefined, workDir: work },
);
const seconds = (performance.now() - started) / 1000;
await rm(work, { recursive: true, force: true });
process.stdout.write(JSON.stringify({ seconds, maxRssMiB: process.resourceUsage().maxRSS / 1024 }));
