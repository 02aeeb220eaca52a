import { closest } from '../config/suggest.js';
import { type EngineClass, capabilitiesOf, isEngineClass } from '../engines/contract.js';

/** Engine classes by name (built-ins, installed extras and `file_imports`). One per app. */
export class EngineTypes {
  readonly #classes = new Map<string, { engineClass: EngineClass; origin: string }>();

  /** Registers a class under its class name; a duplicate name is an error naming both origins. */
  register(engineClass: EngineClass, origin = 'built-in'): void {
    if (!isEngineClass(engineClass)) {
      throw new TypeError(
        `${String((engineClass as { name?: string }).name)} from ${origin} is not an engine class: it defines none of searchBatch, scoreBatch, fuseBatch, decomposeQueryBatch, embedBatch, embedSparseBatch`,
      );
    }
    const existing = this.#classes.get(engineClass.name);
    if (existing) {
      throw new Error(
        `engine "${engineClass.name}" from ${origin} is already defined by ${existing.origin}`,
      );
    }
    this.#classes.set(engineClass.name, { engineClass, origin });
  }

  has(name: string): boolean {
    return this.#classes.has(name);
  }

  /** The class of that name; the error suggests the closest known name. */
  get(name: string): EngineClass {
    const entry = this.#classes.get(name);
    if (entry) return entry.engineClass;
    const hint = closest(name, [...this.#classes.keys()]);
    throw new Error(
      `unknown engine "${name}"${hint ? ` (did you mean "${hint}"?)` : ''}; known engines: ${[...this.#classes.keys()].join(', ')}. Engines from files must be listed in file_imports.`,
    );
  }

  names(): string[] {
    return [...this.#classes.keys()];
  }

  /** The roles and extra capabilities (embed, embed_sparse) of the engine of that name. */
  roles(name: string) {
    return capabilitiesOf(this.get(name));
  }
}
