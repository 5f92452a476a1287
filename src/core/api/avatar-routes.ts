import type { Route } from '../http/router.js';
import { json } from '../http/types.js';
import { validate } from '../http/validate.js';
import { ApiError } from '../errors.js';
import { envelopeSchema, pagingQuerySchema } from '../schemas/common.js';
import { avatarListItemSchema, avatarSchema, type AvatarListItemView, type AvatarView } from '../schemas/avatar.js';
import { catalogueAvatarView, ownedAvatarView } from '../avatars/avatar-views.js';
import { type ApiDeps, envelope } from './deps.js';

/** GET /v2/avatar (the catalogue, then the key's own photo avatars, newest first) and GET /v2/avatar/:uid. */
export function avatarRoutes(deps: ApiDeps): Route[] {
  const query = pagingQuerySchema(deps.paging);
  return [
    {
      method: 'GET',
      pattern: '/v2/avatar',
      access: 'key',
      family: 'v2',
      doc: {
        summary: 'List avatars: the built-in ones, then the photo avatars of this key (newest first)',
        tag: 'Avatars',
        query,
        responses: { 200: { description: 'One page', body: { contentType: 'application/json', schema: envelopeSchema(avatarListItemSchema) } } },
        errors: [400],
      },
      async handle({ request, owner, baseUrl }) {
        const { page, perPage } = validate(query, Object.fromEntries(request.query), 'query');
        const start = (page - 1) * perPage;
        const catalogue = deps.catalogue.list(page, perPage);
        // The key's photo avatars follow the catalogue: this page holds those from `start - catalogue size` on.
        const skip = Math.max(0, start - catalogue.total);
        const photos = await deps.ownedAvatars.list(owner, skip, perPage - catalogue.items.length);
        const links = deps.links(baseUrl);
        const data: AvatarListItemView[] = await Promise.all([
          ...catalogue.items.map(async (entry) => catalogueAvatarView(entry, await deps.catalogue.state(entry), links)),
          ...photos.items.map((view) => ownedAvatarView(view, links)),
        ]);
        return json(200, envelope(page, perPage, catalogue.total + photos.total, data));
      },
    },
    {
      method: 'GET',
      pattern: '/v2/avatar/:uid',
      access: 'key',
      family: 'v2',
      doc: {
        summary: 'Get one avatar (built-in, or a photo avatar of this key)',
        tag: 'Avatars',
        responses: { 200: { description: 'The avatar', body: { contentType: 'application/json', schema: avatarSchema } } },
        errors: [404],
      },
      async handle({ params, owner, baseUrl }) {
        const links = deps.links(baseUrl);
        const entry = deps.catalogue.get(params.uid!);
        if (entry) {
          // The spec's single response has no `thumbnailGenerationStatus` for catalogue avatars.
          const { thumbnailGenerationStatus: _status, ...view } = await catalogueAvatarView(entry, await deps.catalogue.state(entry), links);
          return json(200, view satisfies AvatarView);
        }
        const avatar = await deps.ownedAvatars.get(params.uid!, owner);
        if (!avatar) throw ApiError.notFound('avatar');
        return json(200, (await ownedAvatarView(avatar, links)) satisfies AvatarView);
      },
    },
  ];
}
