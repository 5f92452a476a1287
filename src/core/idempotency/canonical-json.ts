/**
 * JSON with object keys sorted at every level (no whitespace), so two bodies that mean the same thing
 * (keys in another order, other spacing) have the same text and the same fingerprint. Written without
 * recursion: a value nested any number of levels deep costs heap, never stack.
 */
export function canonicalJson(value: unknown): string {
  let text = '';
  // What is still to be written, the next piece last: a value, or punctuation written as it is.
  const todo: ({ value: unknown } | string)[] = [{ value }];
  while (todo.length > 0) {
    const next = todo.pop()!;
    if (typeof next === 'string') {
      text += next;
      continue;
    }
    const item = next.value;
    if (Array.isArray(item)) {
      text += '[';
      todo.push(']');
      for (let i = item.length - 1; i >= 0; i--) {
        todo.push({ value: item[i] === undefined ? null : item[i] });
        if (i > 0) todo.push(',');
      }
    } else if (item !== null && typeof item === 'object') {
      const entries = Object.entries(item as Record<string, unknown>)
        .filter(([, field]) => field !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      text += '{';
      todo.push('}');
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, field] = entries[i]!;
        todo.push({ value: field }, `${i > 0 ? ',' : ''}${JSON.stringify(key)}:`);
      }
    } else {
      text += JSON.stringify(item) ?? 'null';
    }
  }
  return text;
}
