/**
 * Dense numbers for strings in the order first seen (terms, document ids): the builders number
 * what they meet and keep the strings in that order for the index's files.
 */
export class Interner {
  /** The strings, each at its number. */
  readonly values: string[] = [];
  readonly #numbers = new Map<string, number>();

  /** The number of `value`, given the next one when it is new. */
  numberOf(value: string): number {
    let number = this.#numbers.get(value);
    if (number === undefined) {
      number = this.values.length;
      this.#numbers.set(value, number);
      this.values.push(value);
    }
    return number;
  }
}
