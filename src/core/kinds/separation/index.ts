import { defineKind } from '../kind-spec.js';
import type { SeparationJob } from './record.js';
import { createSeparation } from './create.js';
import { runSeparation } from './run.js';
import {
  createSeparationBodySchema,
  separationCreatedSchema,
  separationListItemSchema,
  separationSchema,
  webhookSeparationEventSchema,
} from './schemas.js';
import { separationCreated, separationListItem, separationView } from './views.js';

/** Speech/ambience source separation: POST/GET /v1/sourceSeparations, GET /v1/sourceSeparations/:source_separation_id and its cancel. */
export const separationKind = defineKind<SeparationJob, typeof createSeparationBodySchema>({
  kind: 'separation',
  api: {
    path: '/v1/sourceSeparations',
    family: 'v1',
    idName: 'source_separation_id',
    body: createSeparationBodySchema,
    notFound: 'source separation',
    doc: {
      one: 'a source separation job',
      many: 'source separation jobs',
      tag: 'Source separation (beta)',
      created: separationCreatedSchema,
      listItem: separationListItemSchema,
      single: separationSchema,
      createDescription: 'The input is fetched and checked before the answer; the stems are made in the background.',
    },
    create: createSeparation,
    created: separationCreated,
    listItem: separationListItem,
    single: separationView,
    webhook: {
      type: 'sourceSeparation',
      name: 'sourceSeparationEnded',
      summary: 'A source separation reached `completed` or `error`',
      schema: webhookSeparationEventSchema,
    },
  },
  run: runSeparation,
  results: 'retention',
  resumesAfterStop: false,
});

export type { SeparationJob, SeparationJobInput, SeparationResult } from './record.js';
