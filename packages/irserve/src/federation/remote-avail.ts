import type { Role } from '../engines/contract.js';
import type { ViewKind } from '../collections/types.js';

/** What a remote instance advertises, normalised from either `/avail` shape. */
export interface RemoteListing {
  services: Record<Role, string[]>;
  /** Score service name to input kind (`score_view_kinds`). */
  scoreKinds: Record<string, ViewKind>;
  collections: Record<string, { views: Record<string, ViewKind>; defaultView: string }>;
  grpcPort: number | undefined;
  /** Path of the remote's `POST /batch` (irserve remotes advertise it; RoutIR does not). */
  batchPath: string | undefined;
}

const ROLE_KEYS: Role[] = ['search', 'score', 'fuse', 'decompose_query'];

function names(value: unknown): string[] {
  return Array.isArray(value)
    ? value.filter((name): name is string => typeof name === 'string' && name.length > 0)
    : [];
}

function viewKind(value: unknown): ViewKind {
  return value === 'bytes' ? 'bytes' : 'text';
}

function parseCollections(avail: Record<string, unknown>): RemoteListing['collections'] {
  const out: RemoteListing['collections'] = {};
  const current = avail.collection;
  if (current && typeof current === 'object' && !Array.isArray(current)) {
    for (const [name, entry] of Object.entries(current as Record<string, unknown>)) {
      const record = (entry ?? {}) as { views?: unknown; default?: unknown };
      const views: Record<string, ViewKind> = {};
      if (record.views && typeof record.views === 'object') {
        for (const [view, kind] of Object.entries(record.views as Record<string, unknown>))
          views[view] = viewKind(kind);
      }
      const first = Object.keys(views)[0];
      const defaultView = typeof record.default === 'string' ? record.default : first;
      if (defaultView === undefined) views.text = 'text';
      out[name] = { views, defaultView: defaultView ?? 'text' };
    }
  }
  // RoutIR's older shape: `content: [names]`, one text view each.
  for (const name of names(avail.content))
    out[name] ??= { views: { text: 'text' }, defaultView: 'text' };
  return out;
}

/**
 * Reads a remote `/avail` answer: the spec's shape (`collection` object) and RoutIR's older one
 * (`content` list) alike. Throws when the answer is not an availability listing at all.
 */
export function parseAvail(body: unknown): RemoteListing {
  if (
    !body ||
    typeof body !== 'object' ||
    Array.isArray(body) ||
    !ROLE_KEYS.some((role) => role in body)
  ) {
    throw new Error('the answer to /avail is not an availability listing');
  }
  const avail = body as Record<string, unknown>;
  const scoreKinds: Record<string, ViewKind> = {};
  if (avail.score_view_kinds && typeof avail.score_view_kinds === 'object') {
    for (const [name, kind] of Object.entries(avail.score_view_kinds as Record<string, unknown>))
      scoreKinds[name] = viewKind(kind);
  }
  const services = Object.fromEntries(
    ROLE_KEYS.map((role) => [role, names(avail[role])]),
  ) as Record<Role, string[]>;
  const grpcPort = typeof avail.grpc_port === 'number' ? avail.grpc_port : undefined;
  const batchPath =
    typeof avail.batch_endpoint === 'string' && /^\/[\w/-]{1,100}$/.test(avail.batch_endpoint)
      ? avail.batch_endpoint
      : undefined;
  return { services, scoreKinds, collections: parseCollections(avail), grpcPort, batchPath };
}
