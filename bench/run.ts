/**
 * `npm run bench [section …]`: runs the bench sections (all when none is named) one after another and prints
 * one JSON line per measured scenario on stdout. A new section is a file in bench/ exporting a
 * {@link BenchSection}, added to {@link SECTIONS}.
 */
import { clusterBench } from './cluster.js';
import { eventLoopBench } from './event-loop.js';
import { httpBench } from './http.js';
import { importBench } from './import.js';
import { lipSyncBench } from './lipsync.js';
import { photoDetectBench } from './photo-detect.js';
import { photoMouthBench } from './photo-mouth.js';
import { photoPrepareBench } from './photo-prepare.js';
import { photoRenderBench } from './photo-render.js';
import { runSeparationBench } from './separation.js';
import { measureRunningJobRedis } from './running-job-redis.js';
import { videoAvatarBench } from './video-avatar.js';
import { settingsFromEnv, type BenchLine, type BenchSection } from './lib/settings.js';

const SECTIONS: Record<string, BenchSection> = {
  http: httpBench,
  'event-loop': eventLoopBench,
  cluster: clusterBench,
  // Importing the package: time, CPU and memory of a fresh process, against bare Node.
  import: importBench,
  // Redis round trips of one running job per second (heartbeat, progress, end-of-job notice, queue lock).
  'running-job-redis': async (_settings, emit) => emit(await measureRunningJobRedis()),
  lipsync: lipSyncBench,
  // Photo avatars: each part in turn: face detection alone, the whole preparation through HTTP, the renderer (its
  // speed, identity and lips, then its mouths on real portraits).
  photo: async (settings, emit) => {
    for (const part of [photoDetectBench, photoPrepareBench, photoRenderBench, photoMouthBench]) await part(settings, emit);
  },
  'photo-render': async (settings, emit) => {
    for (const part of [photoRenderBench, photoMouthBench]) await part(settings, emit);
  },
  'photo-mouth': photoMouthBench,
  // Video avatars: preparation, whole job, identity, lips, stability, memory (issue #22).
  'video-avatar': videoAvatarBench,
  separation: async (_settings, emit) => {
    for (const row of await runSeparationBench()) emit({ bench: 'separation', ...row });
  },
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in SECTIONS));
if (unknown.length > 0) {
  console.error(`unknown bench section(s): ${unknown.join(', ')}; known: ${Object.keys(SECTIONS).join(', ')}`);
  process.exit(2);
}
const settings = settingsFromEnv();
const emit = (line: BenchLine) => process.stdout.write(`${JSON.stringify(line)}\n`);
for (const name of wanted.length > 0 ? wanted : Object.keys(SECTIONS)) {
  await SECTIONS[name]!(settings, emit);
}
