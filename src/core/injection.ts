/**
 * tsyringe's decorators, with the Reflect polyfill they need loaded first, so a class module that declares its
 * dependencies imports them from here and works whatever imported it first.
 *
 * Each constructor parameter names its token with `@inject(TOKEN)`: tsx (esbuild) compiles the decorators but emits
 * no `design:paramtypes` metadata (and tsc is configured the same way, `emitDecoratorMetadata: false`), so tsyringe
 * cannot infer a parameter from its type; an explicit token works under both, and so does direct construction with
 * `new` (tests).
 */
import 'reflect-metadata';

export { inject, injectable } from 'tsyringe';
