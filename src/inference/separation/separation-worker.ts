/**
 * Child-process entry of {@link OnnxSeparationEngine}: runs {@link separateOnThisThread} (probe, decodes, STFT,
 * model, iSTFT, resampling, encoding, and the spawns of their ffmpeg processes) for each task, so none of it runs on
 * the host's process. Progress, the loaded model's providers and cleanup warnings travel back as events.
 */
import { serveTasks } from '../workers/serve-tasks.js';
import type { SeparationEvent, SeparationTask } from './separation-task.js';
import { separateOnThisThread } from './separate.js';

serveTasks<SeparationTask, void, SeparationEvent>(async ({ settings, input }, { signal, emit }) => {
  await separateOnThisThread(settings, input, signal, {
    onProgress: (progress) => emit({ type: 'progress', progress }),
    onModel: (model) => emit({ type: 'model', executionProviders: [...model.executionProviders] }),
    logger: { warn: (message, fields) => emit({ type: 'warn', message, fields }) },
  });
});
