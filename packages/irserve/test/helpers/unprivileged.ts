/**
 * File permissions enforced on a test that runs as root (CI does): root writes into a folder of
 * mode 0555 anyway, so a test of a read-only folder runs its step as user `nobody` instead. The
 * process's effective uid and gid (and its groups) switch to nobody's for the step, then back:
 * the real uid stays root, which is what lets it return. The kernel then refuses a write as it
 * would for any user who is not root (EACCES).
 *
 * While switched, the process is the user nobody to the file system: what the step opens (the
 * test's files, modules it loads for the first time) must be readable by everyone, its folders
 * searchable (a `mkdtemp` folder is 0700: open it to 0755 first), and files it should own
 * handed to it (`giveToStepUser`). /proc/self/* belongs to root once the effective uid changed
 * (the process is no longer dumpable): do not read it in the step. `access()` checks the real
 * uid, still root: code that asks it whether a folder is writable hears yes, so a step that
 * depends on it needs a child process that drops root for good (`process.setuid`).
 */
import { chown, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/** The user and group ids of `nobody`/`nogroup` on Debian. */
const NOBODY = 65534;

/**
 * Why this process cannot have file permissions enforced on it, or undefined when it can (it
 * is not root, or it is root and may switch its effective user).
 */
function cannotDropPrivileges(): string | undefined {
  if (process.getuid === undefined || process.seteuid === undefined) {
    return `this platform (${process.platform}) has no POSIX user ids`;
  }
  if (process.getuid() !== 0) return undefined;
  try {
    process.seteuid(NOBODY);
    process.seteuid(0);
    return undefined;
  } catch (error) {
    return `the test runs as root without the right to switch user (${(error as Error).message})`;
  }
}

/**
 * Skips the test (`context.skip`) when this process cannot have file permissions enforced on it,
 * saying why; under `CI=true` fails instead, since CI must run it.
 *
 * @example it('a read-only folder', async (context) => { requirePermissionChecks(context); ... })
 */
export function requirePermissionChecks(context: { skip: (note?: string) => void }): void {
  const cannot = cannotDropPrivileges();
  if (cannot === undefined) return;
  if (process.env.CI) throw new Error(cannot);
  context.skip(cannot);
}

/**
 * Runs `step` with file permissions enforced: as it is when the process is not root, else as
 * user nobody (then back to root, however the step ends).
 *
 * @example
 * await chmod(dir, 0o555);
 * await asUnprivileged(() => expect(writeFile(join(dir, 'x'), '')).rejects.toThrow(/EACCES/));
 */
export async function asUnprivileged<T>(step: () => Promise<T>): Promise<T> {
  if (process.getuid?.() !== 0) return step();
  const groups = process.getgroups!();
  const gid = process.getegid!();
  process.setgroups!([NOBODY]);
  process.setegid!(NOBODY);
  process.seteuid!(NOBODY);
  try {
    return await step();
  } finally {
    process.seteuid!(0);
    process.setegid!(gid);
    process.setgroups!(groups);
  }
}

/**
 * Makes `path` and everything under it belong to the user `asUnprivileged` runs its step as:
 * nobody when this process is root, else this user already (nothing to do). A folder its owner
 * may not write to (mode 0555) is the read-only folder a service meets on a shared volume.
 */
export async function giveToStepUser(path: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  await chown(path, NOBODY, NOBODY);
  for (const name of await readdir(path, { recursive: true })) {
    await chown(join(path, name), NOBODY, NOBODY);
  }
}
