/**
 * The failure of one item of a batch: an engine call (or its result check) may hand one back in
 * place of a result, so that the item alone fails and its neighbours keep their answers.
 */
export class ItemFailure {
  constructor(readonly error: unknown) {}
}

/**
 * `value` itself, or throws the error it carries when it is an ItemFailure.
 *
 * @example
 * unwrapItem(new ItemFailure(new Error('bad item'))); // throws "bad item"
 */
export function unwrapItem<T>(value: T | ItemFailure): T {
  if (value instanceof ItemFailure) throw value.error;
  return value;
}
