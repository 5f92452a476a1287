import { describeError, isFinal, type JobStatus } from './api.js';
import type { WaitOptions } from './client/index.js';
import { announce, byId, h, shortId, timeOf } from './dom.js';

interface BaseJob {
  uid: string;
  status: JobStatus;
  createdAt: string;
  progress?: number;
  errorReason?: { code: string; message: string };
}

const STATUS_TEXT: Record<JobStatus, string> = {
  pending: 'Pending',
  ongoing: 'Processing',
  completed: 'Completed',
  error: 'Failed',
};

const jobsKey = 'virtual-anchor-demo:jobs';

/** What the page remembers of a job it created, for this tab like the key: its label and, for a video, its avatar. */
export interface Remembered {
  /** "Ava · hello.wav" */
  label: string;
  avatarId?: string;
}

function loadRemembered(): Record<string, Remembered> {
  try {
    return JSON.parse(sessionStorage.getItem(jobsKey) ?? '{}') as Record<string, Remembered>;
  } catch {
    return {};
  }
}

export function rememberJob(uid: string, remembered: Remembered): void {
  const all = loadRemembered();
  all[uid] = remembered;
  sessionStorage.setItem(jobsKey, JSON.stringify(all));
}

/** What this tab remembers of a job (nothing for jobs made elsewhere: the API lists them without label or avatar). */
export function recall(uid: string): Remembered | undefined {
  return loadRemembered()[uid];
}

/** Earlier jobs shown per page. */
export const EARLIER_PER_PAGE = 6;

export interface JobListOptions<T extends BaseJob> {
  /** The list that shows the current job (the newest) in full. */
  listId: string;
  emptyId: string;
  /** The (empty) box that gets the compact list of earlier jobs and its pager. */
  earlierId: string;
  /** "Video", "Separation": used in announcements. */
  noun: string;
  /** "videos", "separations": in the earlier list's heading and pager. */
  plural: string;
  fetchOne(uid: string): Promise<T>;
  /** Polls a job with the client's backoff until it is final (`waitForCompletion`). */
  watch(uid: string, options: WaitOptions<T>): Promise<unknown>;
  /** What the current job shows under its header line once completed. */
  renderBody(job: T, refresh: () => void): Node[];
  /** An earlier job in the compact list, whatever its status: a small picture (or none) and links. */
  renderCompact(job: T, title: string): { poster?: Node; links: Node[] };
  /** What the job is busy with while not final. */
  busyText: Record<'pending' | 'ongoing', string>;
}

interface Entry<T> {
  job: T;
  /** Order of arrival: the newer of two jobs created in the same millisecond. */
  seq: number;
  element: HTMLLIElement;
  /** How the job is shown now: in full (the current job), compact (an earlier one on the page shown), or not at all. */
  mode?: 'full' | 'compact';
  stop: () => void;
}

const newestFirst = <T extends BaseJob>(a: Entry<T>, b: Entry<T>) => Date.parse(b.job.createdAt) - Date.parse(a.job.createdAt) || b.seq - a.seq;

/**
 * The jobs of one kind, newest first, each polled until it is final: the newest (the current job) in full with its
 * media players, the earlier ones as a compact list, {@link EARLIER_PER_PAGE} per page with previous/next.
 */
export class JobList<T extends BaseJob> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly list: HTMLElement;
  private readonly empty: HTMLElement;
  private readonly earlier: HTMLElement;
  private readonly earlierList: HTMLUListElement;
  private readonly earlierCount: HTMLElement;
  private readonly pager: HTMLElement;
  private readonly previous: HTMLButtonElement;
  private readonly next: HTMLButtonElement;
  private readonly pageStatus: HTMLElement;
  private seq = 0;
  /** The page of earlier jobs shown, from 0. */
  private page = 0;

  constructor(private readonly options: JobListOptions<T>) {
    this.list = byId(options.listId);
    this.empty = byId(options.emptyId);
    this.earlier = byId(options.earlierId);
    const headingId = `${options.earlierId}-heading`;
    this.earlierCount = h('span', { class: 'earlier-count' });
    this.earlierList = h('ul', { class: 'earlier-list', 'aria-labelledby': headingId });
    this.previous = h('button', { type: 'button', class: 'secondary small', 'data-go': 'previous' }, '← Previous');
    this.next = h('button', { type: 'button', class: 'secondary small', 'data-go': 'next' }, 'Next →');
    this.pageStatus = h('span', { class: 'page-status', 'aria-live': 'polite' });
    this.pager = h('nav', { class: 'pager', 'aria-label': `Pages of earlier ${options.plural}` }, this.previous, this.pageStatus, this.next);
    this.earlier.replaceChildren(
      h('h4', { class: 'earlier-title', id: headingId }, `Earlier ${options.plural} `, this.earlierCount),
      this.earlierList,
      this.pager,
    );
    this.earlier.hidden = true;
    this.previous.addEventListener('click', () => this.turn(-1));
    this.next.addEventListener('click', () => this.turn(1));
  }

  /** Shows jobs from a list answer and polls those still running. */
  showAll(jobs: T[]): void {
    for (const job of [...jobs].reverse()) this.put(job);
    this.layout();
  }

  /** Adds (or updates) one job and polls it until it is final; a new job is the newest, so it becomes the current one. */
  add(job: T): void {
    this.put(job);
    this.layout();
  }

  /** Draws the earlier jobs again (e.g. once the avatars' thumbnails are known). */
  redrawEarlier(): void {
    for (const entry of this.entries.values()) {
      if (entry.mode !== 'compact') continue;
      delete entry.element.dataset.rendered;
      this.render(entry);
    }
  }

  clear(): void {
    for (const entry of this.entries.values()) entry.stop();
    this.entries.clear();
    this.page = 0;
    this.list.replaceChildren();
    this.earlierList.replaceChildren();
    this.earlier.hidden = true;
    this.empty.hidden = false;
  }

  private put(job: T): void {
    const existing = this.entries.get(job.uid);
    if (existing) {
      this.update(existing, job, false);
      return;
    }
    const entry: Entry<T> = { job, seq: this.seq++, element: h('li', { 'data-uid': job.uid }), stop: () => undefined };
    this.entries.set(job.uid, entry);
    this.watch(entry);
  }

  private turn(by: number): void {
    this.page += by;
    this.layout();
    // The button pressed may have become disabled (first or last page): keep the focus in the pager.
    if (document.activeElement instanceof HTMLButtonElement && document.activeElement.disabled) (by < 0 ? this.next : this.previous).focus();
  }

  /** Puts the newest job in the full list and one page of the others in the compact list. */
  private layout(): void {
    const [current, ...earlier] = [...this.entries.values()].sort(newestFirst);
    const pages = Math.max(1, Math.ceil(earlier.length / EARLIER_PER_PAGE));
    this.page = Math.min(Math.max(this.page, 0), pages - 1);
    const shown = earlier.slice(this.page * EARLIER_PER_PAGE, (this.page + 1) * EARLIER_PER_PAGE);
    const visible = new Set([current, ...shown]);
    for (const entry of this.entries.values()) {
      if (!visible.has(entry)) this.show(entry, undefined);
    }
    if (current) this.show(current, 'full');
    for (const entry of shown) this.show(entry, 'compact');
    // Only touch a list whose items changed: moving a playing <video> in the document would pause it.
    place(this.list, current ? [current.element] : []);
    place(this.earlierList, shown.map((entry) => entry.element));
    this.empty.hidden = Boolean(current);
    this.earlier.hidden = earlier.length === 0;
    this.earlierCount.textContent = `(${earlier.length})`;
    this.pager.hidden = pages === 1;
    this.previous.disabled = this.page === 0;
    this.next.disabled = this.page === pages - 1;
    this.pageStatus.textContent = `Page ${this.page + 1} of ${pages}`;
  }

  /** Renders a job in `mode` unless it already is; a job that is not shown is emptied (no media element left loading). */
  private show(entry: Entry<T>, mode: Entry<T>['mode']): void {
    if (entry.mode === mode) return;
    entry.mode = mode;
    delete entry.element.dataset.rendered;
    if (mode) this.render(entry);
    else entry.element.replaceChildren();
  }

  private watch(entry: Entry<T>): void {
    entry.stop();
    if (isFinal(entry.job.status)) return;
    const controller = new AbortController();
    entry.stop = () => controller.abort();
    const warn = (error: unknown) => {
      entry.element.dataset.warning = describeError(error);
      this.render(entry);
    };
    this.options
      .watch(entry.job.uid, {
        signal: controller.signal,
        onUpdate: (job) => this.update(entry, job, true),
        // Shown on the card; the client goes on polling after a longer delay.
        onError: warn,
      })
      .catch((error: unknown) => {
        if (!controller.signal.aborted) warn(error);
      });
  }

  private update(entry: Entry<T>, job: T, announceChange: boolean): void {
    const changed = job.status !== entry.job.status;
    entry.job = job;
    delete entry.element.dataset.warning;
    this.render(entry);
    if (changed && announceChange) {
      const what = `${this.options.noun} ${this.label(job)}`;
      if (job.status === 'completed') announce(`${what} is ready.`);
      else if (job.status === 'error') announce(`${what} failed: ${job.errorReason?.message ?? 'no reason given'}.`);
      else announce(`${what}: ${STATUS_TEXT[job.status].toLowerCase()}.`);
    }
  }

  /** Fetches the job again (fresh signed links, e.g. after a link expired) and re-renders it. */
  private refresh(entry: Entry<T>): void {
    void this.options.fetchOne(entry.job.uid).then(
      (job) => {
        entry.job = job;
        delete entry.element.dataset.rendered;
        this.render(entry);
        if (!isFinal(job.status)) this.watch(entry);
      },
      () => undefined,
    );
  }

  private label(job: T): string {
    return recall(job.uid)?.label ?? shortId(job.uid);
  }

  private render(entry: Entry<T>): void {
    const { job, element, mode } = entry;
    if (!mode) return;
    element.dataset.status = job.status;
    const title = recall(job.uid)?.label ?? `${this.options.noun} ${shortId(job.uid)}`;
    const badge = h('span', { class: 'badge', 'data-status': job.status }, STATUS_TEXT[job.status]);
    const time = h('time', { datetime: job.createdAt }, timeOf(job.createdAt));
    const notes: Node[] = [];
    if (job.status === 'pending' || job.status === 'ongoing') {
      const done = job.status === 'ongoing' && job.progress !== undefined ? ` (${Math.round(job.progress * 100)} %)` : '';
      notes.push(h('p', { class: 'job-note' }, this.options.busyText[job.status] + done), h('div', { class: 'working', 'aria-hidden': 'true' }));
    } else if (job.status === 'error') {
      notes.push(
        h(
          'p',
          { class: 'job-error' },
          h('strong', {}, 'Reason: '),
          job.errorReason?.message ?? 'The service did not say why.',
          job.errorReason?.code ? h('code', {}, job.errorReason.code) : null,
        ),
      );
    }
    // Keep playing media elements alive across re-renders of a final job (nothing changes then).
    const rendered = `${job.uid}:${job.status}:${mode}`;
    if (isFinal(job.status) && element.dataset.rendered === rendered && !element.dataset.warning) return;
    const warning = element.dataset.warning ? h('p', { class: 'job-warning' }, `Could not refresh the status: ${element.dataset.warning} Retrying…`) : null;
    if (mode === 'full') {
      element.className = 'job';
      const head = h('div', { class: 'job-head' }, badge, h('span', { class: 'job-title' }, title), h('span', { class: 'job-meta' }, time));
      const body = job.status === 'completed' ? this.options.renderBody(job, () => this.refresh(entry)) : [];
      element.replaceChildren(head, ...notes, ...body, ...(warning ? [warning] : []));
    } else {
      element.className = 'earlier-job';
      const { poster, links } = this.options.renderCompact(job, title);
      const text = h(
        'div',
        { class: 'earlier-text' },
        h('span', { class: 'job-title' }, title),
        h('span', { class: 'job-meta' }, badge, ' ', time),
        ...notes,
        links.length > 0 ? h('p', { class: 'earlier-links' }, ...links) : null,
        warning,
      );
      element.replaceChildren(...(poster ? [h('div', { class: 'earlier-poster' }, poster)] : []), text);
    }
    element.dataset.rendered = rendered;
  }
}

/** Makes `parent`'s children exactly `children`, leaving it alone when they already are. */
function place(parent: HTMLElement, children: HTMLElement[]): void {
  const now = [...parent.children];
  if (now.length === children.length && now.every((child, index) => child === children[index])) return;
  parent.replaceChildren(...children);
}
