/** A JSON value: what a record holds once it has been through `JSON.stringify`. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * `value` as JSON would carry it (`JSON.parse(JSON.stringify(value))`): `undefined` fields dropped, dates as strings,
 * non-finite numbers as `null`. Done once when a record is stored; reads then take {@link copyJson} of the result.
 */
export function toJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * A deep copy of a tree of JSON values (one that {@link toJson} gave): the same result as parsing its JSON text
 * again, about three times faster, since nothing is printed or parsed.
 */
export function copyJson<T>(value: T): T {
  return copy(value as JsonValue) as T;
}

function copy(value: JsonValue): JsonValue {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copy);
  const out: { [key: string]: JsonValue } = {};
  for (const key in value) {
    // Assigning `__proto__` would set the copy's prototype; JSON.parse makes it an own field, and so does this.
    if (key === '__proto__') Object.defineProperty(out, key, { value: copy(value[key]!), enumerable: true, writable: true, configurable: true });
    else out[key] = copy(value[key]!);
  }
  return out;
}
