/**
 * The demo page: API key, photo avatars and avatar video jobs (/v2), source separation jobs (/v1), all through the
 * public API with the key the visitor typed (kept in sessionStorage, i.e. this tab only).
 */
import { connectTo, describeError, type SeparationJob, type VideoJob, type VirtualAnchorClient } from './api.js';
import { AvatarPicker } from './avatars.js';
import { announce, byId, h, setStatus } from './dom.js';
import { JobList, recall, rememberJob } from './jobs.js';
import { PhotoAvatarForm } from './photo-avatar.js';

const KEY_STORAGE = 'virtual-anchor-demo:key';

let api: VirtualAnchorClient | undefined;
const currentApi = () => api;

// ---------------------------------------------------------------- media players of finished jobs

/** A media element that fetches the job again once if its signed link stopped working (expired). */
function player<K extends 'video' | 'audio'>(tag: K, src: string, label: string, refresh: () => void): HTMLElementTagNameMap[K] {
  const element = h(tag, { controls: true, preload: 'metadata', src, 'aria-label': label }) as HTMLElementTagNameMap[K];
  if (element instanceof HTMLVideoElement) element.playsInline = true;
  element.addEventListener('error', () => refresh(), { once: true });
  return element;
}

/** A download link; `label` names it for screen readers where the text alone is ambiguous (a list of them). */
function download(href: string, text: string, fileName: string, label?: string): HTMLAnchorElement {
  return h('a', { class: 'download', href, download: fileName, 'aria-label': label }, text);
}

const deletedNote = () => h('p', { class: 'job-note' }, 'The result was deleted (results are kept 24 hours).');
const deletedLink = () => h('span', { class: 'muted' }, 'Result deleted (results are kept 24 hours)');

const avatars = new AvatarPicker(currentApi);

/**
 * The small picture of an earlier video: the thumbnail of its avatar when this tab made the job (the API does not
 * say which avatar a job used), else the video's first frame, else a placeholder.
 */
function videoPoster(job: VideoJob): Node {
  const avatarId = recall(job.uid)?.avatarId;
  const thumbnail = avatarId ? avatars.thumbnailOf(avatarId) : undefined;
  const placeholder = () => h('span', { class: 'poster-placeholder', 'aria-hidden': 'true' }, job.status === 'error' ? '!' : '▶');
  if (thumbnail) return h('img', { src: thumbnail, alt: '', width: '72', height: '72', decoding: 'async' });
  if (job.status !== 'completed' || !job.path) return placeholder();
  // preload="metadata" and a time in the fragment: the browser fetches the start of the file and shows that frame.
  const frame = h('video', { src: `${job.path}#t=0.1`, preload: 'metadata', muted: true, playsinline: true, 'aria-hidden': 'true', tabindex: '-1' });
  frame.addEventListener('error', () => frame.replaceWith(placeholder()), { once: true });
  return frame;
}

const videos = new JobList<VideoJob>({
  listId: 'video-jobs',
  emptyId: 'video-empty',
  earlierId: 'video-earlier',
  noun: 'Video',
  plural: 'videos',
  fetchOne: (uid) => currentApi()!.avatarVideos.get(uid),
  watch: (uid, options) => currentApi()!.avatarVideos.waitForCompletion(uid, options),
  busyText: { pending: 'Waiting for a free worker…', ongoing: 'Rendering the video…' },
  renderBody: (job, refresh) => {
    if (!job.path) return [deletedNote()];
    return [
      player('video', job.path, 'Generated video', refresh),
      h('p', { class: 'job-links' }, download(job.path, 'Download mp4', `${job.uid}.mp4`)),
    ];
  },
  renderCompact: (job, title) => {
    const poster = videoPoster(job);
    if (job.status !== 'completed') return { poster, links: [] };
    if (!job.path) return { poster, links: [deletedLink()] };
    const open = { href: job.path, target: '_blank', rel: 'noopener' };
    return {
      // The picture opens the video too; the text link is the one keyboards and screen readers get.
      poster: h('a', { ...open, class: 'poster-link', tabindex: '-1', 'aria-hidden': 'true' }, poster),
      links: [
        h('a', { ...open, class: 'play', 'aria-label': `Play ${title} (opens in a new tab)` }, 'Play'),
        download(job.path, 'Download', `${job.uid}.mp4`, `Download ${title}`),
      ],
    };
  },
});

const stemExtension = (url: string) => (/\.wav(\?|$)/.test(url) ? 'wav' : 'mp3');

const separations = new JobList<SeparationJob>({
  listId: 'separation-jobs',
  emptyId: 'separation-empty',
  earlierId: 'separation-earlier',
  noun: 'Separation',
  plural: 'separations',
  fetchOne: (uid) => currentApi()!.sourceSeparations.get(uid),
  watch: (uid, options) => currentApi()!.sourceSeparations.waitForCompletion(uid, options),
  busyText: { pending: 'Waiting for a free worker…', ongoing: 'Separating speech from ambience…' },
  renderBody: (job, refresh) => {
    if (!job.path?.speech || !job.path.ambience) return [deletedNote()];
    const stem = (name: string, title: string, url: string) =>
      h(
        'div',
        { class: 'stem' },
        h('p', { class: 'stem-title', id: `${name}-${job.uid}` }, title),
        player('audio', url, `${title} of the separation`, refresh),
        download(url, `Download ${title.toLowerCase()}`, `${job.uid}-${name}.${stemExtension(url)}`),
      );
    return [h('div', { class: 'stems' }, stem('speech', 'Speech', job.path.speech), stem('ambience', 'Ambience', job.path.ambience))];
  },
  renderCompact: (job, title) => {
    if (job.status !== 'completed') return { links: [] };
    if (!job.path?.speech || !job.path.ambience) return { links: [deletedLink()] };
    const stem = (name: string, url: string) => download(url, name, `${job.uid}-${name.toLowerCase()}.${stemExtension(url)}`, `Download the ${name.toLowerCase()} of ${title}`);
    return { links: [stem('Speech', job.path.speech), stem('Ambience', job.path.ambience)] };
  },
});

const photoAvatars = new PhotoAvatarForm(currentApi, (avatar) => avatars.select(avatar.uid));

// ---------------------------------------------------------------- the key

const keyForm = byId<HTMLFormElement>('key-form');
const keyInput = byId<HTMLInputElement>('key');
const keyStatus = byId('key-status');
const forgetButton = byId<HTMLButtonElement>('forget');
const workspace = byId('workspace');

async function connect(key: string, fromStorage: boolean): Promise<void> {
  disconnect();
  setStatus(keyStatus, 'Checking the key…', 'busy');
  const candidate = connectTo(key);
  try {
    await candidate.avatars.list({ perPage: 1 });
  } catch (error) {
    setStatus(keyStatus, describeError(error), 'error');
    if (fromStorage) sessionStorage.removeItem(KEY_STORAGE);
    keyInput.setAttribute('aria-invalid', 'true');
    if (!fromStorage) keyInput.focus();
    return;
  }
  api = candidate;
  sessionStorage.setItem(KEY_STORAGE, key);
  keyInput.removeAttribute('aria-invalid');
  setStatus(keyStatus, 'Connected. The key is kept in this browser tab only.', 'ok');
  forgetButton.hidden = false;
  workspace.hidden = false;
  await Promise.all([avatars.load(true), loadJobs()]);
  // Earlier videos drawn before the catalogue came get their avatar's thumbnail now.
  videos.redrawEarlier();
}

async function loadJobs(): Promise<void> {
  const client = api;
  if (!client) return;
  const [v, s] = await Promise.allSettled([client.avatarVideos.list({ perPage: 100 }), client.sourceSeparations.list({ perPage: 100 })]);
  if (api !== client) return;
  if (v.status === 'fulfilled') videos.showAll(v.value.data);
  if (s.status === 'fulfilled') separations.showAll(s.value.data);
}

function disconnect(): void {
  api = undefined;
  avatars.clear();
  photoAvatars.clear();
  videos.clear();
  separations.clear();
  workspace.hidden = true;
  forgetButton.hidden = true;
}

keyForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const key = keyInput.value.trim();
  if (!key) {
    setStatus(keyStatus, 'Type the API key first.', 'error');
    keyInput.setAttribute('aria-invalid', 'true');
    keyInput.focus();
    return;
  }
  void connect(key, false);
});

forgetButton.addEventListener('click', () => {
  sessionStorage.removeItem(KEY_STORAGE);
  keyInput.value = '';
  disconnect();
  setStatus(keyStatus, 'Key forgotten.', 'info');
  keyInput.focus();
});

// ---------------------------------------------------------------- inputs: a file (uploaded first) or a URL

interface SourceFields {
  file: HTMLInputElement;
  url: HTMLInputElement;
  /** "the speech", "the background image" */
  what: string;
}

/** The URL a job gets for one input: the file is uploaded first; an empty choice gives undefined. */
async function resolveSource(fields: SourceFields, progress: HTMLProgressElement, status: HTMLElement): Promise<{ url: string; name: string } | undefined> {
  const file = fields.file.files?.[0];
  const url = fields.url.value.trim();
  if (file && url) throw new FieldError(fields.url, `Give ${fields.what} as a file or as a URL, not both.`);
  if (file) {
    const client = api!;
    setStatus(status, `Uploading ${file.name}…`, 'busy');
    progress.hidden = false;
    progress.value = 0;
    try {
      const upload = await client.uploads.create(file, {
        onProgress: (fraction) => {
          progress.value = fraction;
          setStatus(status, `Uploading ${file.name}… ${Math.round(fraction * 100)} %`, 'busy');
        },
      });
      return { url: upload.url, name: file.name };
    } finally {
      progress.hidden = true;
    }
  }
  if (url) {
    if (!fields.url.checkValidity()) throw new FieldError(fields.url, `The URL of ${fields.what} does not look like a web address (https://…).`);
    return { url, name: url.split(/[?#]/)[0].split('/').filter(Boolean).pop() ?? url };
  }
  return undefined;
}

class FieldError extends Error {
  constructor(
    readonly field: HTMLElement,
    message: string,
  ) {
    super(message);
  }
}

/** Runs a form submission: disables the button, shows progress and errors, focuses a field at fault. */
function handleSubmit(form: HTMLFormElement, status: HTMLElement, run: () => Promise<string>): void {
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
  let busy = false;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (busy) return;
    busy = true;
    button.disabled = true;
    form.querySelectorAll('[aria-invalid]').forEach((el) => el.removeAttribute('aria-invalid'));
    run().then(
      (message) => {
        setStatus(status, message, 'ok');
      },
      (error: unknown) => {
        if (error instanceof FieldError) {
          error.field.setAttribute('aria-invalid', 'true');
          setStatus(status, error.message, 'error');
          if (error.field.id === 'avatars') avatars.focus();
          else error.field.focus();
        } else {
          setStatus(status, describeError(error), 'error');
        }
      },
    ).finally(() => {
      busy = false;
      button.disabled = false;
    });
  });
}

// ---------------------------------------------------------------- the video form

const videoForm = byId<HTMLFormElement>('video-form');
const videoStatus = byId('video-status');
const videoProgress = byId<HTMLProgressElement>('video-progress');
const speech: SourceFields = { file: byId('audio-file'), url: byId('audio-url'), what: 'the speech' };
const background: SourceFields = { file: byId('background-file'), url: byId('background-url'), what: 'the background image' };
const dangerous = byId<HTMLInputElement>('dangerous');

handleSubmit(videoForm, videoStatus, async () => {
  const avatar = avatars.selected();
  if (!avatar) throw new FieldError(byId('avatars'), 'Choose an avatar first.');
  if (!speech.file.files?.length && !speech.url.value.trim()) throw new FieldError(speech.file, 'Choose a speech recording or give its URL.');
  const audio = await resolveSource(speech, videoProgress, videoStatus);
  const bg = await resolveSource(background, videoProgress, videoStatus);
  setStatus(videoStatus, 'Creating the video job…', 'busy');
  const job = await api!.avatarVideos.create({
    audioUrl: audio!.url,
    avatarId: avatar.uid,
    ...(bg ? { backgroundUrl: bg.url } : {}),
    ...(dangerous.checked ? { dangerousFlag: true } : {}),
  });
  rememberJob(job.uid, { label: `${avatar.name} · ${audio!.name}`, avatarId: avatar.uid });
  videos.add(job);
  announce(`Video job created for ${avatar.name}.`);
  return `Job created: ${avatar.name} speaking ${audio!.name}. Its status is in “Your videos” below.`;
});

// ---------------------------------------------------------------- the separation form

const separationForm = byId<HTMLFormElement>('separation-form');
const separationStatus = byId('separation-status');
const separationProgress = byId<HTMLProgressElement>('separation-progress');
const mix: SourceFields = { file: byId('mix-file'), url: byId('mix-url'), what: 'the recording' };

handleSubmit(separationForm, separationStatus, async () => {
  if (!mix.file.files?.length && !mix.url.value.trim()) throw new FieldError(mix.file, 'Choose a recording or give its URL.');
  const input = await resolveSource(mix, separationProgress, separationStatus);
  setStatus(separationStatus, 'Creating the separation job…', 'busy');
  const job = await api!.sourceSeparations.create({ audioUri: input!.url });
  rememberJob(job.uid, { label: input!.name });
  separations.add(job);
  announce(`Separation job created for ${input!.name}.`);
  return `Job created for ${input!.name}. Its status is in “Your separations” below.`;
});

// ---------------------------------------------------------------- start

const saved = sessionStorage.getItem(KEY_STORAGE);
if (saved) {
  keyInput.value = saved;
  void connect(saved, true);
}
