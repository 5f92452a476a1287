/**
 * Worker-thread entry of {@link OnnxMouthAnalyzer}: runs {@link analyzeMouth} (ffmpeg decode, log-mel features,
 * viseme model, mouth track) for each task, so none of it runs on the host's event loop. The shapes travel back
 * packed ({@link packShapes}) with the posteriors, both moved rather than copied.
 */
import { serveTasks } from '../workers/serve-tasks.js';
import { analyzeMouth } from './mouth-analysis.js';
import { packShapes, type AnalysisTask, type PackedAnalysis } from './analysis-task.js';

serveTasks<AnalysisTask, PackedAnalysis>(
  async ({ settings, audioPath, fps, durationSec }, { signal }) => {
    const { shapes, ...rest } = await analyzeMouth(settings, audioPath, fps, signal, durationSec);
    return { ...rest, shapes: packShapes(shapes) };
  },
  (result) => [result.shapes.buffer as ArrayBuffer, result.posteriors.buffer as ArrayBuffer],
);
