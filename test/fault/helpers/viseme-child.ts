/**
 * A child module for the isolation stress test (issue #20's reproduction): it loads the shipped viseme model with
 * onnxruntime-node and runs it. `once` runs the model one time and answers the run count; `loop` runs it over and
 * over, reporting each run as an event, until the task is aborted (`stopOnAbort`) or forever (the child is then
 * killed in the middle of a run).
 */
import { N_MELS } from '../../../src/inference/lipsync/features.js';
import { VisemeModel } from '../../../src/inference/lipsync/viseme-model.js';
import { serveTasks } from '../../../src/inference/workers/serve-tasks.js';

export type VisemeChildTask = { mode: 'once' } | { mode: 'loop'; stopOnAbort: boolean };

/** 2 s of features (200 frames): each run takes a few milliseconds. */
const FRAMES = 200;
const features = new Float32Array(FRAMES * N_MELS).map((_, i) => Math.sin(i / 7));

serveTasks<VisemeChildTask, number, number>(async (task, { signal, emit }) => {
  const model = await VisemeModel.load();
  if (task.mode === 'once') {
    await model.run(features, FRAMES);
    return 1;
  }
  let runs = 0;
  while (!(task.stopOnAbort && signal.aborted)) {
    await model.run(features, FRAMES);
    emit(++runs);
  }
  return runs;
});
