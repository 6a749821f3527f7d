// Strapi 5.54's Document Service middlewares (`strapi.documents.use(async (context, next) => …)` in a
// project's register()): a chain run around every call of `strapi.documents(uid).<action>(params)`, as
// Strapi's middleware-manager runs it — context `{ uid, contentType, action, params }`, the action called
// with `context.params` as the middlewares left them, its result what the chain returns. Each action keeps
// its own transaction (the chain runs outside it, as Strapi's wraps its repository).

export interface DocumentContext {
  uid: string;
  contentType: unknown;
  action: string;
  params: Record<string, unknown>;
}

export type DocumentMiddleware = (context: DocumentContext, next: () => Promise<unknown>) => unknown;

export class DocumentMiddlewares {
  private list: DocumentMiddleware[] = [];

  /** The file that registers them (named when a path that cannot run them is closed). */
  constructor(readonly file: string) {}

  /** Strapi's `use`: appends, and answers the function that removes it again. */
  use(mw: unknown): () => void {
    if (typeof mw !== 'function') throw new TypeError('strapi.documents.use: a middleware must be a function (context, next) => …');
    const f = mw as DocumentMiddleware;
    this.list.push(f);
    return () => { const i = this.list.indexOf(f); if (i >= 0) this.list.splice(i, 1); };
  }

  get size(): number { return this.list.length; }

  /** Runs `call(context.params)` inside the chain (Strapi's manager.run: one shared index, `next()` without arguments). */
  run(context: DocumentContext, call: (params: Record<string, unknown>) => Promise<unknown>): Promise<unknown> {
    let index = 0;
    const list = this.list;
    const next = async (): Promise<unknown> => {
      if (index < list.length) return list[index++]!(context, next);
      return call(context.params);
    };
    return next();
  }
}
