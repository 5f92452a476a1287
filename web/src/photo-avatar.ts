import { describeError, type Avatar, type VirtualAnchorClient } from './api.js';
import { announce, byId, setStatus } from './dom.js';
import { sleep } from './client/wait.js';

/**
 * "Create an avatar from a photo or a video": uploads a portrait or a clip of the person (POST /v2/avatar, multipart),
 * says why the service refused it (not an image or a video, too short or long, no face, face too small, too large),
 * then follows its preparation (GET /v2/avatar/{uid} until
 * `thumbnailGenerationStatus` is not `pending`), shows its preview and hands it to the picker, selected, so the
 * next video uses it.
 */
export class PhotoAvatarForm {
  private readonly form = byId<HTMLFormElement>('photo-form');
  private readonly file = byId<HTMLInputElement>('photo-file');
  private readonly name = byId<HTMLInputElement>('photo-name');
  private readonly button = this.form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
  private readonly progress = byId<HTMLProgressElement>('photo-progress');
  private readonly status = byId('photo-status');
  private readonly preview = byId('photo-preview');
  private readonly previewImage = byId<HTMLImageElement>('photo-preview-image');
  private watching?: AbortController;

  constructor(
    private readonly api: () => VirtualAnchorClient | undefined,
    /** Shows the avatar in the picker, selected. */
    private readonly onReady: (avatar: Avatar) => Promise<void>,
  ) {
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.submit();
    });
  }

  clear(): void {
    this.watching?.abort();
    this.preview.hidden = true;
    this.previewImage.removeAttribute('src');
    setStatus(this.status, '');
  }

  private async submit(): Promise<void> {
    const api = this.api();
    const photo = this.file.files?.[0];
    this.file.removeAttribute('aria-invalid');
    if (!api) return;
    if (!photo) {
      this.file.setAttribute('aria-invalid', 'true');
      setStatus(this.status, 'Choose a photo or a video first: a portrait or a clip where the face is clearly visible.', 'error');
      this.file.focus();
      return;
    }
    this.clear();
    const watching = (this.watching = new AbortController());
    this.button.disabled = true;
    this.progress.hidden = false;
    this.progress.value = 0;
    setStatus(this.status, `Uploading ${photo.name}…`, 'busy');
    try {
      const name = this.name.value.trim();
      const created = await api.avatars.create(photo, {
        ...(name ? { name } : {}),
        onProgress: (fraction) => {
          this.progress.value = fraction;
          setStatus(this.status, fraction < 1 ? `Uploading ${photo.name}… ${Math.round(fraction * 100)} %` : 'Finding the face…', 'busy');
        },
      });
      this.progress.hidden = true;
      setStatus(this.status, `Found the face. Preparing ${created.name}…`, 'busy');
      const avatar = await this.follow(api, created, watching.signal);
      if (avatar.thumbnailGenerationStatus === 'error') {
        setStatus(this.status, `${avatar.name} could not be prepared: ${avatar.errorReason?.message ?? 'unknown reason'}`, 'error');
        return;
      }
      if (avatar.previewImagePath) {
        this.previewImage.src = avatar.previewImagePath;
        this.previewImage.alt = `Preview of ${avatar.name}`;
        this.preview.hidden = false;
      }
      await this.onReady(avatar);
      setStatus(this.status, `${avatar.name} is ready and selected: create a video with it below.`, 'ok');
      announce(`Avatar ${avatar.name} is ready.`);
      this.form.reset();
    } catch (error) {
      if (watching.signal.aborted) return;
      this.file.setAttribute('aria-invalid', 'true');
      setStatus(this.status, describeError(error), 'error');
    } finally {
      this.progress.hidden = true;
      this.button.disabled = false;
    }
  }

  /** Polls the avatar until its preparation ended (1 s, growing to 5 s). */
  private async follow(api: VirtualAnchorClient, avatar: Avatar, signal: AbortSignal): Promise<Avatar> {
    let current = avatar;
    let delay = 1000;
    while (current.thumbnailGenerationStatus === 'pending') {
      await sleep(delay, signal);
      delay = Math.min(delay * 1.5, 5000);
      const fetched = await api.avatars.get(current.uid, { signal });
      current = { ...fetched, thumbnailGenerationStatus: fetched.thumbnailGenerationStatus ?? 'completed' };
    }
    return current;
  }
}
