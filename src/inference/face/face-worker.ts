/**
 * Child-process entry of {@link HumanFaceDetector}: runs {@link detectFaces} for each task. The models load on
 * the first task and stay loaded for the worker's life.
 */
import type { FaceDetection } from '../../domain/avatar/photo.js';
import { serveTasks } from '../workers/serve-tasks.js';
import { detectFaces } from './detect-faces.js';
import type { FaceDetectionEvent, FaceDetectionTask } from './face-detector.js';

serveTasks<FaceDetectionTask, FaceDetection, FaceDetectionEvent>(({ imagePath }, { signal, emit }) => {
  emit('started'); // the detector's deadline starts now, not while the task waited for this child
  return detectFaces(imagePath, signal);
});
