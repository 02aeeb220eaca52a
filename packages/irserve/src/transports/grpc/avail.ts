/** The Avail RPC's answer, built from the same listing as `GET /avail`. */

const ROLES = ['search', 'score', 'fuse', 'decompose_query'] as const;

interface CollectionEntry {
  views?: Record<string, string>;
  default?: string;
}

/**
 * RoutIR's AvailResponse: callable roles in `services` (collections left out: they are in
 * `content_views`), aliases, view kinds, and the gRPC port.
 */
export function availResponse(
  listing: Record<string, unknown>,
  grpcPort: number,
): Record<string, unknown> {
  const services: Record<string, { items: string[] }> = {};
  for (const role of ROLES) services[role] = { items: (listing[role] ?? []) as string[] };
  const contentViews: Record<string, { views: Record<string, string>; default?: string }> = {};
  const collections = (listing.collection ?? {}) as Record<string, CollectionEntry>;
  for (const [name, entry] of Object.entries(collections)) {
    contentViews[name] = {
      views: { ...entry.views },
      ...(typeof entry.default === 'string' ? { default: entry.default } : {}),
    };
  }
  return {
    services,
    pipeline_aliases: listing.pipeline_aliases ?? {},
    grpc_port: grpcPort,
    content_views: contentViews,
    score_view_kinds: listing.score_view_kinds ?? {},
  };
}
