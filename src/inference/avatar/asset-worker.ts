/**
 * Child-process entry of the asset renderers ({@link CanvasAvatarAssetRenderer}, {@link CanvasPhotoAvatarAssetRenderer}):
 * renders each asset here, drawing on this child's own thread.
 */
import { serveTasks } from '../workers/serve-tasks.js';
import { CanvasAvatarAssetRenderer } from './asset-renderer.js';
import { CanvasPhotoAvatarAssetRenderer } from '../photo/photo-asset-renderer.js';
import type { AssetTask } from './asset-task.js';

serveTasks<AssetTask, void>(async (task, { signal }) => {
  if (task.renderer === 'drawn') {
    const renderer = new CanvasAvatarAssetRenderer({ ...task.options, thread: 'main' });
    if (task.method === 'renderIdleVideo') return renderer.renderIdleVideo(task.avatar, task.outputPath, signal);
    return renderer[task.method](task.avatar, task.outputPath);
  }
  const renderer = new CanvasPhotoAvatarAssetRenderer({ ...task.options, thread: 'main' });
  if (task.method === 'renderIdleVideo') return renderer.renderIdleVideo(task.face, task.fps, task.outputPath, signal);
  return renderer[task.method](task.face, task.outputPath);
});
