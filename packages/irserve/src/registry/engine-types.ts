import { closest } from '../util/suggest.js';
import { OFFICIAL_EXTRAS, officialExtraOf } from './official-extras.js';
import { type EngineClass, capabilitiesOf, isEngineClass } from '../engines/contract.js';

/** Engine classes by name (built-ins, installed extras and `file_imports`). One per app. */
export class EngineTypes {
  readonly #classes = new Map<string, { engineClass: EngineClass; origin: string }>();
  /** Names known but not loaded (built-ins no service uses): they still clash and suggest. */
  readonly #reserved = new Map<string, string>();
  /**
   * Engines of installed extras that were not imported (the config uses none of them), by name,
   * with their package: listed and suggested by the unknown-engine error, but no clash.
   */
  readonly #installed = new Map<string, string>();

  /** Records a name whose class is not loaded; `get` of it is an error (load it first). */
  reserve(name: string, origin = 'built-in'): void {
    this.#reserved.set(name, origin);
  }

  /** Records the engine names an installed but not imported extra declares in its package.json. */
  offer(names: readonly string[], origin: string): void {
    for (const name of names) this.#installed.set(name, origin);
  }

  /** Registers a class under its class name; a duplicate name is an error naming both origins. */
  register(engineClass: EngineClass, origin = 'built-in'): void {
    if (!isEngineClass(engineClass)) {
      throw new TypeError(
        `${String((engineClass as { name?: string }).name)} from ${origin} is not an engine class: it defines none of searchBatch, scoreBatch, fuseBatch, decomposeQueryBatch, embedBatch, embedSparseBatch`,
      );
    }
    const existing =
      this.#classes.get(engineClass.name)?.origin ?? this.#reserved.get(engineClass.name);
    if (existing !== undefined) {
      throw new Error(
        `engine "${engineClass.name}" from ${origin} is already defined by ${existing}`,
      );
    }
    this.#classes.set(engineClass.name, { engineClass, origin });
  }

  /** Whether a class of that name is loaded (reserved names are not). */
  has(name: string): boolean {
    return this.#classes.has(name);
  }

  /**
   * The class of that name; the error lists every known name (those of installed extras with
   * their package) and suggests the closest.
   */
  get(name: string): EngineClass {
    const entry = this.#classes.get(name);
    if (entry) return entry.engineClass;
    if (this.#reserved.has(name) || this.#installed.has(name))
      throw new Error(`internal: engine "${name}" was not loaded`);
    const missing = officialExtraOf(name);
    if (missing) throw new Error(`engine "${name}" ${notInstalled(missing)}`);
    const known = this.names();
    const fromExtras = [...this.#installed].filter(([extraName]) => !known.includes(extraName));
    const hint = closest(name, [
      ...known,
      ...fromExtras.map(([extraName]) => extraName),
      ...Object.values(OFFICIAL_EXTRAS).flat(),
    ]);
    const extras = fromExtras.map(([extraName, origin]) => `${extraName} (${origin})`);
    throw new Error(
      `unknown engine "${name}"${this.#hint(hint)}; known engines: ${[...known, ...extras].join(', ')}. Engines from files must be listed in file_imports.`,
    );
  }

  /** ` (did you mean "X"?)`, saying what to install when X is an extra's that is not installed. */
  #hint(name: string | undefined): string {
    if (!name) return '';
    const extra =
      this.#classes.has(name) || this.#installed.has(name) ? undefined : officialExtraOf(name);
    return ` (did you mean "${name}"${extra ? `, which ${notInstalled(extra)}` : ''}?)`;
  }

  /** Every known engine name, loaded or reserved. */
  names(): string[] {
    return [...new Set([...this.#classes.keys(), ...this.#reserved.keys()])];
  }

  /** The roles and extra capabilities (embed, embed_sparse) of the engine of that name. */
  roles(name: string) {
    return capabilitiesOf(this.get(name));
  }
}

/** What to do about an official extra that was not found. */
function notInstalled(extra: string): string {
  return `is provided by ${extra}, which is not installed: npm install ${extra} (see docs/install.md)`;
}
