/** The `code` of a Node.js system error (`ENOENT`, `EEXIST`, ...), or `undefined` for anything else. */
export function fsErrorCode(error: unknown): string | undefined {
  return error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}
