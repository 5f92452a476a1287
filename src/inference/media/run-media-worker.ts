/** Child-process entry of `runMedia`: starts each command from this small process, so the fork never stops the host's event loop. */
import { serveTasks } from '../workers/serve-tasks.js';
import { runHere } from './run-media.js';
import type { MediaRunOutcome, MediaRunTask } from './run-media-task.js';

serveTasks<MediaRunTask, MediaRunOutcome>((task, { signal }) => runHere(task, signal));
