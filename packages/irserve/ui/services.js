// What the server offers, from /avail: services by role (a search service with the collection it
// indexes), pipeline aliases and collections, each clickable; and the collection a pipeline's
// documents come from.

const ROLES = ['search', 'score', 'fuse', 'decompose_query'];
const NAME = /[A-Za-z][A-Za-z0-9_-]*/g;

/** Every service and alias name, for completion. */
export function serviceNames(listing) {
  const names = ROLES.flatMap((role) => listing[role] ?? []);
  return [...new Set([...names, ...Object.keys(listing.pipeline_aliases ?? {})])].sort();
}

/**
 * The collection the first search service of `pipeline` indexes (`/avail`'s
 * `search_collections`), looking through aliases; undefined when none names one.
 */
export function collectionOf(pipeline, listing, seen = new Set()) {
  const aliases = listing.pipeline_aliases ?? {};
  for (const [name] of pipeline.matchAll(NAME)) {
    const collection = listing.search_collections?.[name];
    if (collection) return collection;
    if (aliases[name] !== undefined && !seen.has(name)) {
      seen.add(name);
      const inAlias = collectionOf(aliases[name], listing, seen);
      if (inAlias) return inAlias;
    }
  }
  return undefined;
}

function chip(text, title, onClick) {
  const code = document.createElement('code');
  code.textContent = text;
  code.title = title;
  code.tabIndex = 0;
  code.addEventListener('click', onClick);
  code.addEventListener('keydown', (event) => event.key === 'Enter' && onClick());
  return code;
}

function line(label, className, chips) {
  const row = document.createElement('div');
  row.className = className;
  row.append(`${label}: `, ...chips);
  return row;
}

/**
 * Lists `listing` in `aside`: a service or alias clicked calls `onName(name)` (the page puts it
 * in the pipeline box), a collection clicked `onCollection(name)`.
 */
export function showServices(aside, listing, { onName, onCollection }) {
  const indexes = listing.search_collections ?? {};
  const rows = ROLES.map((role) =>
    line(
      role,
      `role-${role}`,
      (listing[role] ?? []).map((name) =>
        chip(
          indexes[name] ? `${name} → ${indexes[name]}` : name,
          indexes[name] ? `${role} service over ${indexes[name]}` : `${role} service`,
          () => onName(name),
        ),
      ),
    ),
  );
  const aliases = Object.entries(listing.pipeline_aliases ?? {});
  rows.push(
    line(
      'aliases',
      'aliases',
      aliases.map(([name, source]) => chip(name, `${name} = ${source}`, () => onName(name))),
    ),
  );
  const collections = Object.entries(listing.collection ?? {});
  rows.push(
    line(
      'collections',
      'collections',
      collections.map(([name, { views }]) =>
        chip(name, `views: ${Object.keys(views).join(', ')}`, () => onCollection(name)),
      ),
    ),
  );
  aside.replaceChildren(...rows);
}
