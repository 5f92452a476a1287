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

const labelsKey = 'virtual-anchor-demo:labels';

/** Labels the page gave its own jobs ("Ava · hello.wav"), kept for this tab like the key. */
function loadLabels(): Record<string, string> {
  try {
    return JSON.parse(sessionStorage.getItem(labelsKey) ?? '{}') as Record<string, string>;
  } catch {
    return {};
  }
}

export function rememberLabel(uid: string, label: string): void {
  const labels = loadLabels();
  labels[uid] = label;
  sessionStorage.setItem(labelsKey, JSON.stringify(labels));
}

export interface JobListOptions<T extends BaseJob> {
  listId: string;
  emptyId: string;
  /** "Video", "Separation": used in announcements. */
  noun: string;
  fetchOne(uid: string): Promise<T>;
  /** Polls a job with the client's backoff until it is final (`waitForCompletion`). */
  watch(uid: string, options: WaitOptions<T>): Promise<unknown>;
  /** What a job shows under its header line, by status. */
  renderBody(job: T, refresh: () => void): Node[];
  /** What the job is busy with while not final. */
  busyText: Record<'pending' | 'ongoing', string>;
}

interface Entry<T> {
  job: T;
  element: HTMLLIElement;
  stop: () => void;
}

/** A list of jobs, newest first, each polled until it is final. */
export class JobList<T extends BaseJob> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly list: HTMLElement;
  private readonly empty: HTMLElement;

  constructor(private readonly options: JobListOptions<T>) {
    this.list = byId(options.listId);
    this.empty = byId(options.emptyId);
  }

  /** Shows jobs from a list answer (oldest last) and polls those still running. */
  showAll(jobs: T[]): void {
    for (const job of [...jobs].reverse()) this.add(job);
  }

  /** Adds (or updates) one job at the top of the list and polls it until it is final. */
  add(job: T): void {
    const existing = this.entries.get(job.uid);
    if (existing) {
      this.update(existing, job, false);
      return;
    }
    const element = h('li', { class: 'job', 'data-uid': job.uid });
    const entry: Entry<T> = { job, element, stop: () => undefined };
    this.entries.set(job.uid, entry);
    this.list.prepend(element);
    this.empty.hidden = true;
    this.render(entry);
    this.watch(entry);
  }

  clear(): void {
    for (const entry of this.entries.values()) entry.stop();
    this.entries.clear();
    this.list.replaceChildren();
    this.empty.hidden = false;
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
    return loadLabels()[job.uid] ?? shortId(job.uid);
  }

  private render(entry: Entry<T>): void {
    const { job, element } = entry;
    const labels = loadLabels();
    element.dataset.status = job.status;
    const title = labels[job.uid] ?? `${this.options.noun} ${shortId(job.uid)}`;
    const head = h(
      'div',
      { class: 'job-head' },
      h('span', { class: 'badge', 'data-status': job.status }, STATUS_TEXT[job.status]),
      h('span', { class: 'job-title' }, title),
      h('span', { class: 'job-meta' }, h('time', { datetime: job.createdAt }, timeOf(job.createdAt))),
    );
    const body: Node[] = [];
    if (job.status === 'pending' || job.status === 'ongoing') {
      const done = job.status === 'ongoing' && job.progress !== undefined ? ` (${Math.round(job.progress * 100)} %)` : '';
      body.push(h('p', { class: 'job-note' }, this.options.busyText[job.status] + done), h('div', { class: 'working', 'aria-hidden': 'true' }));
    } else if (job.status === 'error') {
      body.push(
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
    const keepMedia = isFinal(job.status) && element.dataset.rendered === `${job.uid}:${job.status}`;
    if (keepMedia && !element.dataset.warning) return;
    if (job.status === 'completed') body.push(...this.options.renderBody(job, () => this.refresh(entry)));
    if (element.dataset.warning) body.push(h('p', { class: 'job-warning' }, `Could not refresh the status: ${element.dataset.warning} Retrying…`));
    element.replaceChildren(head, ...body);
    element.dataset.rendered = `${job.uid}:${job.status}`;
  }
}
