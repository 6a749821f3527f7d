// koa-compose, as Strapi chains route and global middlewares: each function gets `next` running the rest.
import type { KoaContext } from './ctx.ts';

export type Next = () => Promise<unknown>;
export type Middleware = (ctx: KoaContext, next: Next) => unknown;

/** Calling next twice is an error, as Koa's. */
export function compose(fns: Middleware[]): (ctx: KoaContext, last: Next) => Promise<unknown> {
  return (ctx, last) => {
    let index = -1;
    const dispatch = (i: number): Promise<unknown> => {
      if (i <= index) return Promise.reject(new Error('next() called multiple times'));
      index = i;
      if (i === fns.length) return last();
      try { return Promise.resolve(fns[i](ctx, () => dispatch(i + 1))); } catch (e) { return Promise.reject(e); }
    };
    return dispatch(0);
  };
}
