import { describeError, type Avatar, type VirtualAnchorClient } from './api.js';
import { byId, h, setStatus } from './dom.js';

const reducedMotion = () => window.matchMedia('(prefers-reduced-motion: reduce)').matches;

/**
 * The avatar picker: a radio group of thumbnail cards (arrow keys move between them) and a preview
 * of the selected avatar (its preview image and idle-loop video). While the service is still
 * generating thumbnails the catalogue is fetched again with a growing delay.
 */
export class AvatarPicker {
  private avatars: Avatar[] = [];
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;
  private refreshDelay = 1500;
  private readonly list = byId('avatars');
  private readonly status = byId('avatars-status');
  private readonly preview = byId('avatar-preview');
  private readonly previewVideo = byId<HTMLVideoElement>('avatar-preview-video');
  private readonly previewImage = byId<HTMLImageElement>('avatar-preview-image');
  private readonly previewName = byId('avatar-preview-name');
  private readonly previewToggle = byId<HTMLButtonElement>('avatar-preview-toggle');

  constructor(private readonly api: () => VirtualAnchorClient | undefined) {
    this.list.addEventListener('change', () => this.showPreview());
    // The idle loop has no native controls (they would cover the small preview): one Play/Pause button.
    this.previewToggle.addEventListener('click', () => {
      if (this.previewVideo.paused) void this.previewVideo.play().catch(() => undefined);
      else this.previewVideo.pause();
    });
    for (const event of ['play', 'pause', 'emptied']) this.previewVideo.addEventListener(event, () => this.syncToggle());
  }

  private syncToggle(): void {
    const action = this.previewVideo.paused ? 'Play' : 'Pause';
    this.previewToggle.textContent = action;
    this.previewToggle.setAttribute('aria-label', `${action} the idle loop of ${this.previewName.textContent ?? 'the avatar'}`);
  }

  /** The selected avatar, if any. */
  selected(): Avatar | undefined {
    const checked = this.list.querySelector<HTMLInputElement>('input[name="avatar"]:checked');
    return checked ? this.avatars.find((a) => a.uid === checked.value) : undefined;
  }

  focus(): void {
    (this.list.querySelector<HTMLInputElement>('input:checked') ?? this.list.querySelector<HTMLInputElement>('input'))?.focus();
  }

  nameOf(uid: string): string | undefined {
    return this.avatars.find((a) => a.uid === uid)?.name;
  }

  /** The signed link to an avatar's thumbnail, once the catalogue is loaded and the thumbnail made. */
  thumbnailOf(uid: string): string | undefined {
    return this.avatars.find((a) => a.uid === uid)?.thumbnailPath || undefined;
  }

  /** Loads the list again and selects `uid` (a photo avatar just made), showing its preview. */
  async select(uid: string): Promise<void> {
    await this.load();
    const input = this.list.querySelector<HTMLInputElement>(`input[value="${uid}"]`);
    if (!input) return;
    input.checked = true;
    this.showPreview();
  }

  /** Shows the catalogue; `initial` is the first load after the key was accepted. */
  async load(initial = false): Promise<void> {
    const api = this.api();
    if (!api) return;
    if (initial) {
      this.refreshDelay = 1500;
      setStatus(this.status, 'Loading avatars…', 'busy');
    }
    try {
      const page = await api.avatars.list({ perPage: 100 });
      if (this.api() !== api) return;
      this.render(page.data);
      const pending = page.data.filter((a) => a.thumbnailGenerationStatus === 'pending' || !a.thumbnailPath).length;
      if (page.data.length === 0) setStatus(this.status, 'The catalogue is empty: the operator has not configured any avatar.', 'error');
      else if (pending > 0) setStatus(this.status, `Preparing pictures for ${pending} of ${page.data.length} avatars… you can already pick one.`, 'busy');
      else setStatus(this.status, `${page.data.length} avatars. Select one to preview it.`, 'info');
      if (pending > 0) this.scheduleRefresh();
    } catch (error) {
      setStatus(this.status, describeError(error), 'error');
      this.scheduleRefresh();
    }
  }

  clear(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.avatars = [];
    this.list.replaceChildren();
    this.preview.hidden = true;
    this.previewVideo.removeAttribute('src');
    this.previewVideo.load();
  }

  private scheduleRefresh(): void {
    if (this.refreshTimer) clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => void this.load(), this.refreshDelay);
    this.refreshDelay = Math.min(this.refreshDelay * 1.6, 20_000);
  }

  private render(avatars: Avatar[]): void {
    const selectedUid = this.selected()?.uid;
    const focusedUid = (document.activeElement as HTMLInputElement | null)?.name === 'avatar' ? (document.activeElement as HTMLInputElement).value : undefined;
    // Every GET hands out freshly signed links; keep the ones already shown so pictures do not reload.
    const before = new Map(this.avatars.map((a) => [a.uid, a]));
    this.avatars = avatars.map((avatar) => {
      const old = before.get(avatar.uid);
      if (!old) return avatar;
      return {
        ...avatar,
        thumbnailPath: old.thumbnailPath || avatar.thumbnailPath,
        previewImagePath: old.previewImagePath || avatar.previewImagePath,
        path: old.path || avatar.path,
      };
    });
    const cards = this.avatars.map((avatar, index) => {
      const inputId = `avatar-${avatar.uid}`;
      const picture = avatar.thumbnailPath
        ? h('img', { src: avatar.thumbnailPath, alt: '', width: '96', height: '96', decoding: 'async' })
        : h('span', { class: 'face-placeholder', 'aria-hidden': 'true' }, avatar.name.slice(0, 1).toUpperCase());
      return h(
        'div',
        { class: 'avatar' },
        h('input', {
          type: 'radio',
          name: 'avatar',
          id: inputId,
          value: avatar.uid,
          class: 'visually-hidden',
          checked: avatar.uid === selectedUid,
          required: index === 0,
        }),
        h('label', { for: inputId }, h('span', { class: 'face' }, picture), h('span', { class: 'avatar-name' }, avatar.name)),
      );
    });
    this.list.replaceChildren(...cards);
    if (focusedUid) this.list.querySelector<HTMLInputElement>(`input[value="${focusedUid}"]`)?.focus();
    if (selectedUid) this.showPreview(false);
  }

  private showPreview(restartVideo = true): void {
    const avatar = this.selected();
    if (!avatar) {
      this.preview.hidden = true;
      return;
    }
    this.preview.hidden = false;
    this.previewName.textContent = avatar.name;
    const hasVideo = Boolean(avatar.path);
    this.previewImage.hidden = hasVideo || !avatar.previewImagePath;
    if (avatar.previewImagePath) this.previewImage.src = avatar.previewImagePath;
    this.previewImage.alt = `Preview of ${avatar.name}`;
    this.previewVideo.hidden = !hasVideo;
    this.previewToggle.hidden = !hasVideo;
    if (hasVideo && (restartVideo || !this.previewVideo.getAttribute('src'))) {
      this.previewVideo.poster = avatar.previewImagePath;
      this.previewVideo.src = avatar.path;
      this.previewVideo.setAttribute('aria-label', `${avatar.name}, idle loop`);
      if (!reducedMotion()) void this.previewVideo.play().catch(() => undefined);
    }
    this.syncToggle();
  }
}
