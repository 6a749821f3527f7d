// The `strapi` object a project's code receives (and the registries behind strapi.controller/service/
// middleware/policy): documents(uid) reads, service, controller, contentType(s), components, config.get,
// log, db.query (./query-engine.ts), db.lifecycles, db.connection.raw (./knex-raw.ts), db.transaction (./transaction.ts).
// A property this server does not implement throws at its first use, naming itself ("strapi.plugin('i18n') is
// not supported by this server"), never a silent undefined.
import { knexConnection } from './knex-raw.ts';
import { Lifecycles } from './lifecycles.ts';
import type { Config } from '../../config.ts';
import type { Attribute, Component, ContentType, Schema } from '../../compiler/schema.ts';
import type { RestContext, UserDocumentChain } from '../rest/router.ts';
import { usersPermissionsTypes } from '../plugin-types.ts';
import { log } from '../log.ts';
import { FILES } from '../../compiler/layout.ts';
import { BUILD, CORE_FACTORY, isCoreFactory, type CoreFactory, type UserPart } from './factories.ts';
import { documentService, type Around, type DocumentService } from './documents.ts';
import { DocumentMiddlewares } from './document-middlewares.ts';
import { documentCoreService } from './core-service-documents.ts';
import { singleDocumentId } from '../rest/write.ts';
import { dirname, relative } from 'node:path';
import { entityService, type EntityService } from './entity-service.ts';
import { queryRepository, type QueryRepository } from './query-engine.ts';
import { coreController, coreService, type Methods } from './core.ts';
import type { LoadedFile, ProjectCode } from './load.ts';
import { ProjectLoadError } from './load.ts';
import { ExtensionService, type ExtensionApi, type ProjectExtensions } from '../graphql/extension.ts';
import { ContentApiParams, projectZod } from './content-api-params.ts';
import { useZod } from './modules.ts';
import { inTransaction, transaction } from './transaction.ts';
import { apiTokenQuery, apiTokenService, encryptionService, localesService, type ApiTokenQuery } from './admin-services.ts';

/** The functions of the core controllers and services: a route whose action and service are these is answered without them. */
export const CORE_FUNCTIONS = new WeakSet<object>();

export type MiddlewareFactory = (config: Record<string, unknown>, opts: { strapi: unknown }) => unknown;
export type PolicyHandler = (policyContext: object, config: Record<string, unknown>, opts: { strapi: unknown }) => unknown;

export interface StrapiDeps {
  schema: Schema;
  config: Config;
  /** A REST context outside any request (the core services' reads). */
  base: () => RestContext;
  /** The same with the document service's compiler. */
  documents: () => RestContext;
  /** The same with the Query Engine's (strapi.db.query: every status and locale, private attributes). */
  rows: () => RestContext;
  /** The schema those reads know: the project's, and users-permissions' types (start-project.ts withUsersTypes). */
  rowsSchema: Schema;
}

/** Strapi's content-type object as project code reads it (`attributes` keyed by name, Strapi's spelling). */
function strapiAttribute(a: Attribute): Record<string, unknown> {
  switch (a.kind) {
    case 'scalar': return { type: a.type, ...(a.customField ? { customField: a.customField } : {}), ...(a.required ? { required: true } : {}), ...(a.private ? { private: true } : {}), ...(a.unique ? { unique: true } : {}), ...(a.enum ? { enum: a.enum } : {}), ...(a.default !== undefined ? { default: a.default } : {}) };
    case 'media': return { type: 'media', multiple: a.multiple, allowedTypes: a.allowedTypes };
    case 'relation': return { type: 'relation', relation: a.relation, target: a.target, ...(a.mappedBy ? { mappedBy: a.mappedBy } : {}), ...(a.inversedBy ? { inversedBy: a.inversedBy } : {}) };
    case 'morph': return { type: 'relation', relation: a.relation, ...(a.target ? { target: a.target } : {}) };
    case 'component': return { type: 'component', component: a.component, repeatable: a.repeatable };
    case 'dynamiczone': return { type: 'dynamiczone', components: a.components };
  }
}
export function strapiModel(m: ContentType | Component): Record<string, unknown> {
  const attributes = Object.fromEntries(m.attributes.map((a) => [a.name, strapiAttribute(a)]));
  if ('kind' in m) {
    return {
      uid: m.uid, kind: m.kind, modelType: 'contentType', modelName: m.singularName, collectionName: m.table,
      info: { singularName: m.singularName, pluralName: m.pluralName }, options: { draftAndPublish: m.draftAndPublish },
      pluginOptions: m.localized ? { i18n: { localized: true } } : {}, attributes,
    };
  }
  return { uid: m.uid, category: m.category, modelType: 'component', modelName: m.singularName, collectionName: m.table, attributes };
}

/** `strapi.config.get(path, default)`: the keys this server knows under Strapi's names, else the default. */
function configValue(config: Config, path: string): unknown {
  const rest = config.api.rest;
  const known: Record<string, unknown> = {
    'api.rest.defaultLimit': rest.defaultLimit, 'api.rest.maxLimit': rest.maxLimit, 'api.rest.withCount': rest.withCount,
    'api.rest.prefix': '/api', 'server.url': config.publicUrl, 'plugin::graphql.shape': config.graphql.shape,
    'plugin::i18n.defaultLocale': config.i18n.defaultLocale,
  };
  return known[path];
}

const INTEROP = new Set(['then', 'toJSON', 'constructor', 'inspect', '__esModule']);

/** The worker's strapi object, its registries filled from the project's loaded files. */
export class ProjectStrapi {
  readonly api: StrapiApi;
  private controllers = new Map<string, Methods>();
  private services = new Map<string, Methods>();
  private controllerFiles = new Map<string, LoadedFile>();
  private serviceFiles = new Map<string, LoadedFile>();
  readonly middlewares = new Map<string, { file: string; factory: MiddlewareFactory }>();
  readonly policies = new Map<string, { file: string; handler: PolicyHandler; validator?: (c: unknown) => void }>();
  private docs = new Map<string, DocumentService>();
  private repos = new Map<string, QueryRepository>();
  /** What `strapi.documents.use` registered (register()): every strapi.documents call runs through it. */
  readonly documentMiddlewares: DocumentMiddlewares;
  /** What strapi.plugin('graphql').service('extension') collects (register()); the GraphQL plugin builds with it. */
  readonly graphql = new ExtensionService();
  private graphqlApi: unknown = null;
  /**
   * How strapi.plugin('graphql').service('extension') is made, once (Strapi's registry instantiates a service
   * at its first use): GraphQL's own factory, or what a project's src/extensions/graphql/strapi-server put in
   * its place (src/project/graphql-extension.ts).
   */
  graphqlFactory: () => unknown = () => this.graphql.forProject(this.api);
  /** After register(): the schema is (being) built, later calls change nothing, as in Strapi. */
  private graphqlLate: ExtensionApi | null = null;
  private registered = false;
  /** The project's lifecycle hooks: its content-types' files, then what register()/bootstrap() subscribe. */
  readonly hooks: Lifecycles;

  /** What register() gave strapi.contentAPI.addQueryParams / addInputParams (routes take them when built). */
  readonly contentApiParams: ContentApiParams;

  constructor(private deps: StrapiDeps, code: ProjectCode) {
    // The Zod of a project's params and of `require('@strapi/utils').z`: its own when installed.
    const zod = projectZod(dirname(code.src));
    useZod(zod);
    this.contentApiParams = new ContentApiParams(() => zod);
    this.hooks = new Lifecycles((uid) => {
      const ct = deps.schema.contentTypes.get(uid)!;
      return { ...strapiModel(ct), singularName: ct.singularName, tableName: ct.table };
    });
    for (const [api, c] of code.apis) {
      for (const [name, f] of c.controllers) this.controllerFiles.set(`api::${api}.${name}`, f);
      for (const [name, f] of c.services) this.serviceFiles.set(`api::${api}.${name}`, f);
      for (const [name, f] of c.middlewares) this.addMiddleware(`api::${api}.${name}`, f);
      for (const [name, f] of c.policies) this.addPolicy(`api::${api}.${name}`, f);
    }
    for (const [name, f] of code.middlewares) this.addMiddleware(`global::${name}`, f);
    for (const [name, f] of code.policies) this.addPolicy(`global::${name}`, f);
    this.documentMiddlewares = new DocumentMiddlewares(code.index ? relative(dirname(code.src), code.index.file) : 'src/index');
    this.api = this.makeApi();
  }

  private addMiddleware(uid: string, f: LoadedFile): void {
    if (typeof f.value !== 'function') throw new ProjectLoadError(`${f.file}: a middleware must export a function (config, { strapi }) => async (ctx, next) => {…}`);
    this.middlewares.set(uid, { file: f.file, factory: f.value as MiddlewareFactory });
  }
  private addPolicy(uid: string, f: LoadedFile): void {
    const v = f.value as { handler?: unknown; validator?: unknown } | ((...a: unknown[]) => unknown);
    if (typeof v === 'function') this.policies.set(uid, { file: f.file, handler: v as PolicyHandler });
    else if (v && typeof v.handler === 'function') this.policies.set(uid, { file: f.file, handler: v.handler as PolicyHandler, validator: typeof v.validator === 'function' ? v.validator as (c: unknown) => void : undefined });
    else throw new ProjectLoadError(`${f.file}: a policy must export a function (policyContext, config, { strapi }) or { handler }`);
  }

  private contentType(uid: string): ContentType {
    const ct = this.deps.schema.contentTypes.get(uid);
    if (!ct || ct.builtin) throw new TypeError(`no content-type ${uid}`);
    return ct;
  }

  /** Instantiates a controller or service file's export (a core factory, a function of { strapi }, or an object). */
  private instantiate(kind: 'controller' | 'service', uid: string, file: LoadedFile | undefined): Methods | undefined {
    const v = file?.value;
    try {
      if (v === undefined) {
        // A content-type without the file still has Strapi's core controller and service.
        return this.deps.schema.contentTypes.has(uid) && !this.deps.schema.contentTypes.get(uid)!.builtin ? this.build({ [CORE_FACTORY]: { kind, uid, user: undefined } } as unknown as CoreFactory) : undefined;
      }
      if (isCoreFactory(v)) return this.build(v);
      if (typeof v === 'function') return (v as (o: { strapi: unknown }) => Methods)({ strapi: this.api });
      if (v && typeof v === 'object') return v as Methods;
    } catch (e) {
      throw new ProjectLoadError(`${file?.file ?? uid}: ${(e as Error)?.stack ?? String(e)}`);
    }
    throw new ProjectLoadError(`${file!.file}: a ${kind} must export an object or a function ({ strapi }) => object`);
  }

  /** createCoreController/createCoreService: the user part over the core base, as Strapi's factories. */
  private build(f: CoreFactory): Methods {
    const { kind, uid, user } = f[CORE_FACTORY];
    const ct = this.contentType(uid);
    const base = kind === 'controller'
      ? coreController(this.deps.schema, ct, () => this.service(uid)!)
      : this.coreService(ct);
    for (const k of Object.keys(base)) if (typeof base[k] === 'function') CORE_FUNCTIONS.add(base[k] as object);
    const part = (typeof user === 'function' ? (user as Exclude<UserPart, Record<string, unknown> | undefined>)({ strapi: this.api }) : user) ?? {};
    const out = part as Methods;
    for (const k of Object.keys(base)) if (out[k] === undefined) out[k] = base[k];
    Object.setPrototypeOf(out, base);
    return out;
  }

  /**
   * Strapi's core service: on the REST compiler's reads and writes, or — once the project registered
   * document middlewares — through strapi.documents(uid), as Strapi's, so that they run.
   */
  private coreService(ct: ContentType): Methods {
    const native = coreService(ct, this.deps.base);
    const rest = this.deps.config.api.rest;
    const limits = { defaultLimit: rest.defaultLimit, maxLimit: rest.maxLimit, withCount: rest.withCount };
    const viaDocuments = documentCoreService(ct, () => this.documents(ct.uid), limits, () => singleDocumentId(this.deps.documents(), ct));
    const out: Methods = {};
    for (const k of Object.keys(native)) {
      const a = native[k] as (...args: unknown[]) => unknown;
      const b = viaDocuments[k] as (...args: unknown[]) => unknown;
      out[k] = (...args: unknown[]) => (this.documentMiddlewares.size ? b(...args) : a(...args));
    }
    return out;
  }

  controller(uid: string): Methods | undefined {
    let c = this.controllers.get(uid);
    if (!c) { c = this.instantiate('controller', uid, this.controllerFiles.get(uid)); if (c) this.controllers.set(uid, c); }
    return c;
  }
  service(uid: string): Methods | undefined {
    let s = this.services.get(uid);
    if (!s) { s = this.instantiate('service', uid, this.serviceFiles.get(uid)); if (s) this.services.set(uid, s); }
    return s;
  }
  documents(uid: string): DocumentService {
    let d = this.docs.get(uid);
    if (!d) {
      const ct = this.contentType(uid);
      const model = this.api.contentType(uid);
      // Without middlewares a call pays one size check; the context is Strapi's (contentType: its model).
      const around: Around = (action, params, call) => this.documentMiddlewares.size === 0 ? call(params)
        : this.documentMiddlewares.run({ uid, contentType: model, action, params }, call);
      d = documentService(this.deps.documents(), ct, around);
      this.docs.set(uid, d);
    }
    return d;
  }

  /** strapi.db.query(uid): the Query Engine's reads of any model this server knows, plugins' included. */
  query(uid: string): QueryRepository {
    let r = this.repos.get(uid);
    if (!r) {
      const ct = this.deps.rowsSchema.contentTypes.get(uid);
      if (!ct) throw new TypeError(`strapi.db.query('${uid}'): no model ${uid}`);
      // Files keep their render cache as media records (another table shape): a file row written here is rendered live until refreshed.
      r = queryRepository(this.deps.rows, this.deps.rowsSchema, ct, this.deps.schema.contentTypes.has(uid) && ct.table !== FILES.table);
      this.repos.set(uid, r);
    }
    return r;
  }

  /**
   * The chain around strapi.documents('plugin::users-permissions.user')'s create and update, which Strapi's
   * users-permissions plugin calls for its user writes; the write itself is the native one (src/users/user-documents.ts).
   */
  userDocuments(): UserDocumentChain {
    const uid = 'plugin::users-permissions.user';
    const model = { ...strapiModel(usersPermissionsTypes(this.deps.schema).users), uid };
    return (action, params, write) => this.documentMiddlewares.run({ uid, contentType: model, action, params }, write);
  }

  /** GraphQL's extension service during the register phase, made at its first use. */
  graphqlService(): unknown { return (this.graphqlApi ??= this.graphqlFactory()); }

  /** register() ran: what the extension service gets from now on does not reach the GraphQL schema. */
  endRegister(): void { this.registered = true; }

  /** The GraphQL extensions the project registered, with the `strapi` their factories and policies get. */
  extensions(): ProjectExtensions {
    // Named resolver policies are the project's (Strapi's: policyContext, config, { strapi }).
    const policy = (name: string) => { const p = this.policies.get(name); return p && ((c: object, config: Record<string, unknown>) => p.handler(c, config, { strapi: this.api })); };
    return { service: this.graphql, strapi: this.api, policy };
  }

  /** The admin services a bootstrap sets its data up with (./admin-services.ts); null for any other uid. */
  private adminService(uid: string): Methods | null {
    const auth = this.deps.config.auth;
    if (uid === 'admin::encryption') return encryptionService(auth.encryptionKey) as unknown as Methods;
    if (uid === 'admin::api-token') return apiTokenService(() => this.deps.rows().db, auth.apiTokenSalt, encryptionService(auth.encryptionKey)) as unknown as Methods;
    return null;
  }

  /** strapi.plugin(name): GraphQL's extension service and i18n's locales; anything else names itself. */
  private plugin(name: string): { service(name: string): unknown } {
    const where = `strapi.plugin('${name}')`;
    if (name === 'i18n') {
      return strictObject({
        service: (s: string) => {
          if (s !== 'locales') throw new TypeError(`${where}.service('${s}') is not supported by this server`);
          return localesService(() => this.deps.rows().db);
        },
      }, where);
    }
    if (name !== 'graphql') throw new TypeError(`${where} is not supported by this server`);
    const plugin = {
      service: (s: string) => {
        if (s !== 'extension') throw new TypeError(`${where}.service('${s}') is not supported by this server`);
        // After register() a detached service: the same in every thread whatever runs when (bootstrap()
        // runs in the main thread only).
        if (this.registered) return (this.graphqlLate ??= new ExtensionService().forProject(this.api));
        return this.graphqlService();
      },
    };
    return strictObject(plugin, where);
  }

  private makeApi(): StrapiApi {
    const schema = this.deps.schema;
    const contentTypes = Object.fromEntries([...schema.contentTypes.values()].filter((c) => !c.builtin).map((c) => [c.uid, strapiModel(c)]));
    const components = Object.fromEntries([...schema.components.values()].map((c) => [c.uid, strapiModel(c)]));
    const api: StrapiApi = {
      // Document service middlewares: with one registered, core routes run Strapi's controller and service
      // through strapi.documents (src/project/route-builder.ts), GraphQL's Shadow CRUD (Strapi 5's shape) and users-permissions' user writes run through it too.
      documents: Object.assign((uid: string) => this.documents(uid), {
        use: (mw: unknown) => this.documentMiddlewares.use(mw),
      }),
      entityService: entityService((uid) => this.documents(uid), (uid) => schema.contentTypes.get(uid), (uid) => this.query(uid)),
      service: (uid: string) => this.adminService(uid) ?? this.service(pluginless('service', uid)),
      controller: (uid: string) => this.controller(pluginless('controller', uid)),
      contentType: (uid: string) => contentTypes[uid],
      contentTypes,
      components,
      getModel: (uid: string) => contentTypes[uid] ?? components[uid],
      config: { get: (path: string, fallback?: unknown) => configValue(this.deps.config, path) ?? fallback, has: (path: string) => configValue(this.deps.config, path) !== undefined },
      log: { debug: (m: unknown) => log.debug(String(m)), info: (m: unknown) => log.info(String(m)), warn: (m: unknown) => log.warn(String(m)), error: (m: unknown) => log.error(String(m)) },
      middleware: (uid: string) => this.middlewares.get(uid)?.factory,
      policy: (uid: string) => this.policies.get(uid)?.handler,
      // What register() registers is read while the models load (./custom-fields.ts): a call at run time changes nothing here.
      customFields: { register: () => {} },
      contentAPI: strictObject(this.contentApiParams.api(), 'strapi.contentAPI'),
      plugin: (name: string) => this.plugin(name),
      // Lifecycle subscriptions (src/project/lifecycles.ts); the rest of the database layer names itself.
      db: strictObject({
        lifecycles: strictObject({ subscribe: (s: unknown) => this.hooks.subscribe(s) }, 'strapi.db.lifecycles'),
        query: (uid: string) => (uid === 'admin::api-token' ? apiTokenQuery(() => this.deps.rows().db) : this.query(uid)),
        connection: strictObject(knexConnection(() => this.deps.base()), 'strapi.db.connection'),
        transaction: (cb: unknown) => transaction(this.deps.base, cb, strictObject({}, 'strapi.db.transaction\'s trx (a knex transaction)')),
        inTransaction: () => inTransaction(),
      }, 'strapi.db'),
      [BUILD]: (f: CoreFactory) => this.build(f),
    };
    return new Proxy(api, {
      get(target, prop, receiver) {
        if (typeof prop === 'symbol' || prop in target) return Reflect.get(target, prop, receiver);
        if (INTEROP.has(prop)) return undefined;
        throw new TypeError(`strapi.${prop} is not supported by this server`);
      },
    });
  }
}

/** A plugin's or the admin's service or controller is not this server's to give: it names itself (never undefined). */
function pluginless(kind: 'service' | 'controller', uid: string): string {
  if (typeof uid === 'string' && /^(plugin|admin)::/.test(uid)) throw new TypeError(`strapi.${kind}('${uid}') is not supported by this server`);
  return uid;
}

/** An object whose other properties throw naming themselves (a plugin's `controller`, `config`…). */
function strictObject<T extends object>(o: T, where: string): T {
  return new Proxy(o, {
    get(target, prop, receiver) {
      if (typeof prop === 'symbol' || prop in target) return Reflect.get(target, prop, receiver);
      if (INTEROP.has(prop)) return undefined;
      throw new TypeError(`${where}.${prop} is not supported by this server`);
    },
  });
}

export interface StrapiApi {
  documents(uid: string): DocumentService;
  entityService: EntityService;
  service(uid: string): Methods | undefined;
  controller(uid: string): Methods | undefined;
  contentType(uid: string): unknown;
  contentTypes: Record<string, Record<string, unknown>>;
  components: Record<string, Record<string, unknown>>;
  getModel(uid: string): unknown;
  config: { get(path: string, fallback?: unknown): unknown; has(path: string): boolean };
  log: Record<'debug' | 'info' | 'warn' | 'error', (m: unknown) => void>;
  middleware(uid: string): MiddlewareFactory | undefined;
  policy(uid: string): PolicyHandler | undefined;
  customFields: { register(customField: unknown): void };
  contentAPI: { addQueryParams(o: Record<string, unknown>): void; addInputParams(o: Record<string, unknown>): void };
  plugin(name: string): { service(name: string): unknown };
  db: { lifecycles: { subscribe(subscriber: unknown): void }; query(uid: string): QueryRepository | ApiTokenQuery; connection: ReturnType<typeof knexConnection> };
  [BUILD]: (f: CoreFactory) => Methods;
}
