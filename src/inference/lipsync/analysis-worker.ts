/**
 * Child-process entry of {@link OnnxMouthAnalyzer}: runs {@link analyzeMouth} (ffmpeg decode, log-mel features,
 * viseme model, mouth track) for each task, so none of it runs in the host's process. The shapes travel back
 * packed ({@link packShapes}) with the posteriors, as typed arrays.
 */
import { serveTasks } from '../workers/serve-tasks.js';
import { analyzeMouth } from './mouth-analysis.js';
import { packShapes, type AnalysisTask, type PackedAnalysis } from './analysis-task.js';

serveTasks<AnalysisTask, PackedAnalysis>(async ({ settings, audioPath, fps, durationSec }, { signal }) => {
  const { shapes, ...rest } = await analyzeMouth(settings, audioPath, fps, signal, durationSec);
  return { ...rest, shapes: packShapes(shapes) };
});
