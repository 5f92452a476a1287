/**
 * The optional backends' client libraries that the package loads only when a backend needing one is built
 * (src/storage/backend-sdks.ts, src/queue/bullmq-sdk.ts), and how a fresh process tells which of them it has loaded:
 * shared by test/storage/backend-sdks.test.ts and `npm run bench import`.
 */
export const OPTIONAL_LIBRARIES = ['@redis/client', 'bullmq', '@aws-sdk/client-s3', '@aws-sdk/lib-storage', '@aws-sdk/s3-request-presigner'];

/**
 * Source text of an expression for a script run with `node -e` that has made `require` with `createRequire`: the
 * names of {@link OPTIONAL_LIBRARIES} with a file in the module cache (CommonJS packages: `import` puts them there too).
 */
export const LOADED_LIBRARIES_EXPRESSION = `${JSON.stringify(OPTIONAL_LIBRARIES)}.filter((name) => Object.keys(require.cache).some((file) => file.includes('/node_modules/' + name + '/')))`;
