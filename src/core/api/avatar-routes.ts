import type { Route } from '../http/router.js';
import { json } from '../http/types.js';
import { validate } from '../http/validate.js';
import { ApiError } from '../errors.js';
import { envelopeSchema, pagingQuerySchema } from '../schemas/common.js';
import type { AvatarEntry } from '../avatars/avatar-catalogue.js';
import type { LinkBuilder } from '../links.js';
import { avatarListItemSchema, avatarSchema, type AvatarListItemView, type AvatarView } from '../schemas/avatar.js';
import { type ApiDeps, envelope } from './deps.js';

async function avatarView(entry: AvatarEntry, links: LinkBuilder): Promise<AvatarView> {
  const [path, previewImagePath, thumbnailPath] = await Promise.all([
    links.link(entry.assets.video, `${entry.definition.id}.mp4`),
    links.link(entry.assets.preview, `${entry.definition.id}-preview.png`),
    links.link(entry.assets.thumbnail, `${entry.definition.id}-thumbnail.png`),
  ]);
  return {
    uid: entry.uid,
    name: entry.name,
    path,
    previewImagePath,
    thumbnailPath,
    createdAt: entry.createdAt,
    updatedAt: entry.updatedAt,
  };
}

/** GET /v2/avatar and GET /v2/avatar/:uid. */
export function avatarRoutes(deps: ApiDeps): Route[] {
  const query = pagingQuerySchema(deps.paging);
  return [
    {
      method: 'GET',
      pattern: '/v2/avatar',
      access: 'key',
      family: 'v2',
      doc: {
        summary: 'List avatars',
        tag: 'Avatars',
        query,
        responses: { 200: { description: 'One page', body: { contentType: 'application/json', schema: envelopeSchema(avatarListItemSchema) } } },
        errors: [400],
      },
      async handle({ request, baseUrl }) {
        const { page, perPage } = validate(query, Object.fromEntries(request.query), 'query');
        const { total, items } = deps.catalogue.list(page, perPage);
        const links = deps.links(baseUrl);
        const data: AvatarListItemView[] = await Promise.all(
          items.map(async (e) => ({ ...(await avatarView(e, links)), thumbnailGenerationStatus: e.thumbnailGenerationStatus })),
        );
        return json(200, envelope(page, perPage, total, data));
      },
    },
    {
      method: 'GET',
      pattern: '/v2/avatar/:uid',
      access: 'key',
      family: 'v2',
      doc: {
        summary: 'Get one avatar',
        tag: 'Avatars',
        responses: { 200: { description: 'The avatar', body: { contentType: 'application/json', schema: avatarSchema } } },
        errors: [404],
      },
      async handle({ params, baseUrl }) {
        const entry = deps.catalogue.get(params.uid!);
        if (!entry) throw ApiError.notFound('avatar');
        return json(200, await avatarView(entry, deps.links(baseUrl)));
      },
    },
  ];
}
