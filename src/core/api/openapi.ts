import { z } from 'zod';
import { envelopeSchema, errorBodySchema, jobStatusSchema, type PagingLimits } from '../schemas/common.js';
import { avatarListItemSchema, avatarSchema } from '../schemas/avatar.js';
import { avatarVideoCreatedSchema, avatarVideoSchema, createAvatarVideoBodySchema } from '../schemas/avatar-video.js';
import {
  createSeparationBodySchema,
  separationCreatedSchema,
  separationListItemSchema,
  separationSchema,
} from '../schemas/separation.js';
import { uploadSchema } from '../schemas/upload.js';

type Schema = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: 'input' | 'output' = 'output'): Schema =>
  z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Schema;

const jsonContent = (schema: z.ZodType) => ({ 'application/json': { schema: toSchema(schema) } });
const errors = (...codes: number[]) =>
  Object.fromEntries(codes.map((c) => [String(c), { description: ERROR_TEXT[c], content: jsonContent(errorBodySchema) }]));

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad request: malformed body or query (field details), unreachable or invalid media, audio too long',
  403: 'Forbidden: missing or invalid `key` header',
  404: 'Not found (or owned by another key)',
  413: 'Too large',
  415: 'Body is not `application/json`',
  429: 'Too many requests of this key waiting',
};

const keyHeader = { name: 'key', in: 'header', required: true, schema: { type: 'string' }, description: 'API key, bare or `Bearer <key>`' };
const pageParams = (limits: PagingLimits) => [
  { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
  { name: 'perPage', in: 'query', schema: { type: 'integer', minimum: 1, maximum: limits.maxPerPage, default: limits.defaultPerPage } },
];
const statusParam = { name: 'status', in: 'query', schema: toSchema(jobStatusSchema) };
const idParam = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });

/** The OpenAPI 3.1 document of the mounted API, generated from the same zod schemas that validate requests. */
export function buildOpenApi(limits: PagingLimits, serverUrl: string): object {
  const ok = (description: string, schema: z.ZodType, status = '200') => ({ [status]: { description, content: jsonContent(schema) } });
  return {
    openapi: '3.1.0',
    info: {
      title: 'virtual-anchor',
      version: '0.1.0',
      description: 'Lip-synced avatar videos (/v2) and speech/ambience source separation (/v1, beta).',
    },
    servers: [{ url: serverUrl }],
    paths: {
      '/v2/avatar': {
        get: { summary: 'List avatars', parameters: [keyHeader, ...pageParams(limits)], responses: { ...ok('Avatars', envelopeSchema(avatarListItemSchema)), ...errors(400, 403) } },
      },
      '/v2/avatar/{uid}': {
        get: { summary: 'Get one avatar', parameters: [keyHeader, idParam('uid')], responses: { ...ok('Avatar', avatarSchema), ...errors(403, 404) } },
      },
      '/v2/2davatar': {
        post: {
          summary: 'Create an avatar video job',
          parameters: [keyHeader],
          requestBody: { required: true, content: { 'application/json': { schema: toSchema(createAvatarVideoBodySchema, 'input') } } },
          responses: { ...ok('Created', z.array(avatarVideoCreatedSchema), '201'), ...errors(400, 403, 413, 415, 429) },
        },
        get: {
          summary: 'List avatar video jobs',
          parameters: [keyHeader, ...pageParams(limits), statusParam],
          responses: { ...ok('Jobs', envelopeSchema(avatarVideoSchema)), ...errors(400, 403) },
        },
      },
      '/v2/2davatar/{id}': {
        get: { summary: 'Get an avatar video job', parameters: [keyHeader, idParam('id')], responses: { ...ok('Job', avatarVideoSchema), ...errors(403, 404) } },
      },
      '/v1/sourceSeparations': {
        post: {
          summary: 'Create a source separation job (beta)',
          parameters: [keyHeader],
          requestBody: { required: true, content: { 'application/json': { schema: toSchema(createSeparationBodySchema, 'input') } } },
          responses: { ...ok('Created', z.array(separationCreatedSchema), '201'), ...errors(400, 403, 413, 415, 429) },
        },
        get: {
          summary: 'List source separation jobs',
          parameters: [keyHeader, ...pageParams(limits), statusParam],
          responses: { ...ok('Jobs', envelopeSchema(separationListItemSchema)), ...errors(400, 403, 429) },
        },
      },
      '/v1/sourceSeparations/{source_separation_id}': {
        get: {
          summary: 'Get a source separation job',
          parameters: [keyHeader, idParam('source_separation_id')],
          responses: { ...ok('Job', separationSchema), ...errors(403, 404, 429) },
        },
      },
      '/v1/uploads': {
        post: {
          summary: 'Upload a file; returns a private URL usable as job input by the same key (kept 24 h)',
          parameters: [keyHeader],
          requestBody: {
            required: true,
            content: { 'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', contentMediaType: 'application/octet-stream' } }, required: ['file'] } } },
          },
          responses: { ...ok('Uploaded', uploadSchema, '201'), ...errors(400, 403, 413, 429) },
        },
      },
      '/v1/uploads/{id}': {
        get: { summary: "An upload's metadata", parameters: [keyHeader, idParam('id')], responses: { ...ok('Upload', uploadSchema), ...errors(403, 404, 429) } },
      },
    },
  };
}
