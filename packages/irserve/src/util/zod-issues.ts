/** Zod issues as readable lines naming their fields (request bodies, config files, engine configs). */
import type { z } from 'zod';

/** Renders a zod issue path as `a.b[0].c` (the request's field name). */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** Turns zod issues into one readable line per issue, each naming its field. */
export function formatIssues(issues: readonly z.core.$ZodIssue[], root = 'body'): string[] {
  return issues.map((issue) => {
    const where = issue.path.length > 0 ? formatPath(issue.path) : root;
    return `${where}: ${issue.message}`;
  });
}
