// Operation execution: each (document text, operation name) is parsed, validated (with the depth
// limit and the introspection rule), and compiled by graphql-jit once; a cache hit goes straight to
// the compiled function. Between parsing and validation, the limits are checked on the bare AST
// (selections once fragments are expanded, then the cost), so a refused document costs its parse and
// little more. Errors take Apollo/Strapi's shape: `extensions.code` and, for errors thrown by
// Strapi-like services, `extensions.error` {name, message, details}.
import {
  GraphQLError, Kind, getNamedType, getVariableValues, isInputObjectType, parse, specifiedRules, typeFromAST, validate, visit,
  type ASTNode, type DocumentNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode,
  type SelectionNode, type TypeNode, type ValidationContext, type ValidationRule,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import { ApiError } from '../../compiler/errors.ts';
import { log } from '../log.ts';
import { isDatabaseFailure, isUnavailable, toApiError } from '../db/errors.ts';
import type { GqlContext } from './resolvers.ts';
import { operationCost, type CostLimits } from './cost.ts';
import { deepestOperation, documentSize, fragmentsOf, type DocumentSize } from './size.ts';
import { WeightedLru } from './weighted-lru.ts';

export interface GqlError {
  message: string;
  locations?: ReadonlyArray<{ line: number; column: number }>;
  path?: ReadonlyArray<string | number>;
  extensions: Record<string, unknown>;
}

export interface GqlResponse { status: number; body: string }

interface Prepared {
  compiled: CompiledQuery<Record<string, unknown>, Record<string, unknown>>;
  operation: OperationDefinitionNode;
  /** Variables of input object types, coerced by graphql-js before execution (see passThroughInputVariables). */
  coerceFirst: string[];
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
}

/** The same type wrappers around another named type: `[FiltersInput!]!` → `[JSON!]!`. */
function renamed(t: TypeNode, name: string): TypeNode {
  if (t.kind === Kind.NAMED_TYPE) return { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: name } };
  if (t.kind === Kind.LIST_TYPE) return { kind: Kind.LIST_TYPE, type: renamed(t.type, name) };
  return { kind: Kind.NON_NULL_TYPE, type: renamed(t.type, name) as Exclude<TypeNode, { kind: Kind.NON_NULL_TYPE }> };
}

/**
 * graphql-jit 0.8 unrolls the coercion of input object variables at compile time, which never ends for
 * recursive inputs (every FiltersInput has and/or/not). Such variables are declared to jit as the
 * pass-through JSON scalar instead, and coerced beforehand by graphql-js against their real type.
 */
function passThroughInputVariables(schema: GraphQLSchema, doc: DocumentNode): { doc: DocumentNode; names: string[] } {
  const names: string[] = [];
  const out = visit(doc, {
    VariableDefinition(node) {
      const t = typeFromAST(schema, node.type as never);
      if (!t || !isInputObjectType(getNamedType(t))) return undefined;
      names.push(node.variable.name.value);
      return { ...node, type: renamed(node.type, 'JSON'), defaultValue: undefined };
    },
  });
  return { doc: out, names };
}

// ---------------------------------------------------------------- validation rules

/** The largest depth of a selection set (a loop: spreading thousands of selections into Math.max overflows the stack). */
function deepest(selections: readonly SelectionNode[], depth: (s: SelectionNode) => number): number {
  let max = 0;
  for (const s of selections) max = Math.max(max, depth(s));
  return max;
}

/** graphql-depth-limit's rule: the deepest field over `max` is reported, named by the operation. */
export function depthLimitRule(max: number): ValidationRule {
  return (context: ValidationContext) => {
    const doc = context.getDocument();
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    const seen = new Set<string>();
    const depth = (node: SelectionNode | OperationDefinitionNode | FragmentDefinitionNode, so: number, op: string): number => {
      if (so > max) {
        context.reportError(new GraphQLError(`'${op}' exceeds maximum operation depth of ${max}`, { nodes: [node as ASTNode] }));
        return so;
      }
      switch (node.kind) {
        case Kind.FIELD:
          if (/^__/.test(node.name.value) || !node.selectionSet) return 0;
          return 1 + deepest(node.selectionSet.selections, (s) => depth(s, so + 1, op));
        case Kind.FRAGMENT_SPREAD: {
          const f = fragments.get(node.name.value);
          if (!f || seen.has(f.name.value)) return 0;
          seen.add(f.name.value);
          try { return depth(f, so, op); } finally { seen.delete(f.name.value); }
        }
        default:
          return deepest(node.selectionSet.selections, (s) => depth(s, so, op));
      }
    };
    for (const d of doc.definitions) if (d.kind === Kind.OPERATION_DEFINITION) depth(d, 0, d.name?.value ?? '');
    return {};
  };
}

/** Apollo's production default: no __schema / __type. */
const noIntrospection: ValidationRule = (context) => ({
  Field(node) {
    if (node.name.value === '__schema' || node.name.value === '__type') {
      context.reportError(new GraphQLError(
        'GraphQL introspection is not allowed by Apollo Server, but the query contained __schema or __type. To enable introspection, pass introspection: true to ApolloServer in production',
        { nodes: [node] }));
    }
  },
});

// ---------------------------------------------------------------- errors

const snakeUpper = (s: string) => s.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();

function locations(e: GraphQLError): GqlError['locations'] {
  return e.locations?.map((l) => ({ line: l.line, column: l.column }));
}

export function requestError(message: string, code: string, e?: GraphQLError): GqlError {
  const loc = e ? locations(e) : undefined;
  return loc?.length ? { message, locations: loc, extensions: { code } } : { message, extensions: { code } };
}

/** An execution error as Strapi formats it (services' errors carry their name, message and details). */
export function executionError(e: GraphQLError): GqlError {
  let orig: unknown = e.originalError;
  // Input PostgreSQL refused is the client's 400, an unavailable database a 503 (execute() answers it with that status).
  if (!(orig instanceof ApiError) && isDatabaseFailure(orig)) orig = toApiError(orig);
  if (orig instanceof ApiError) {
    const code = orig.errorName === 'ForbiddenError' || orig.errorName === 'UnauthorizedError' || orig.errorName === 'PolicyError' ? 'FORBIDDEN'
      : orig.errorName === 'ValidationError' ? 'BAD_USER_INPUT'
      : orig.status >= 500 ? 'INTERNAL_SERVER_ERROR' : `STRAPI_${snakeUpper(orig.errorName)}`;
    return {
      message: orig.message, path: e.path,
      extensions: { code, error: { name: orig.errorName, message: orig.message, details: orig.details ?? {} } },
    };
  }
  if (orig && !(orig instanceof GraphQLError) && !(orig instanceof TypeError && /cannot represent/.test(String((orig as Error).message)))) {
    log.error('graphql resolver failed', { error: String((orig as Error)?.stack ?? orig) });
    return { message: 'Internal Server Error', path: e.path, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  }
  const out: GqlError = { message: e.message, extensions: { code: 'INTERNAL_SERVER_ERROR' } };
  const loc = locations(e);
  if (loc?.length) out.locations = loc;
  if (e.path) out.path = e.path;
  return out;
}

const errorBody = (errors: GqlError[]) => JSON.stringify({ errors });

// ---------------------------------------------------------------- engine

export interface EngineOptions {
  depthLimit: number; introspection: boolean;
  /** Most prepared operations (and failures) kept, and the bytes they may keep (estimated: see weightOf). */
  cacheSize: number; cacheBytes: number;
  /** Most lexical tokens a document may have (graphql's parse maxTokens): more is a parse error. */
  maxTokens: number;
  /** Most selections a document may make once its fragments are expanded (src/graphql/size.ts); more → 400. */
  maxSelections: number;
  /** Largest operation cost (src/graphql/cost.ts) executed; larger ones are refused before any work. */
  maxCost: number;
  cost: CostLimits;
  /** Largest response body in bytes (http.maxResponseSize): a bigger one is replaced by a 400. */
  maxResponseSize: number;
}

/**
 * How many documents reached the steps that a document refused by a limit must never reach (their work
 * grows with the expanded document): read by test/graphql-limits.test.ts. Per thread, as the engines are.
 */
export const engineWork = { validated: 0, compiled: 0 };

// What a cache entry keeps, measured (test/graphql-limits.measure.ts): the text with its AST ≈ 70–80
// bytes a character; graphql-jit's generated code ≈ 1.2 KB a selection.
const BYTES_PER_CHAR = 80;
const BYTES_PER_SELECTION = 1200;

function weightOf(key: string, entry: Prepared | GqlResponse, selections: number): number {
  return 'compiled' in entry ? key.length * BYTES_PER_CHAR + selections * BYTES_PER_SELECTION : key.length + entry.body.length;
}

/** A limit's refusal: the shape of the depth rule's (Apollo's GRAPHQL_VALIDATION_FAILED, status 400). */
const refusal = (message: string): GqlResponse => ({ status: 400, body: errorBody([requestError(message, 'GRAPHQL_VALIDATION_FAILED')]) });

/** A bomb's cost can pass what a double holds exactly (2^1000): it is then shown as a bound. */
const shownCost = (cost: number) => (Number.isSafeInteger(cost) ? String(cost) : `over ${Number.MAX_SAFE_INTEGER}`);

/** The operation a request runs, as graphql-js picks it; undefined when it names none that exists, or must. */
function chosenOperation(doc: DocumentNode, operationName: string | undefined): OperationDefinitionNode | undefined {
  const ops = doc.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return operationName ? ops.find((o) => o.name?.value === operationName) : ops.length === 1 ? ops[0] : undefined;
}

/**
 * Selections (fragments expanded) up to which a document is validated before it is priced: graphql-js's
 * rules are cheap there (some grow with the square of a document's fields, the reason larger ones are
 * priced first), and Strapi, which prices nothing, answers an invalid document's errors whatever it asks.
 */
const VALIDATED_FIRST = 500;

export class GraphqlEngine {
  private cache: WeightedLru<Prepared | GqlResponse>;
  private rules: ValidationRule[];
  /** For a document whose fragments spread in a cycle: the spec's rules refuse it; the depth rule would walk every path around it. */
  private specRules: ValidationRule[];
  constructor(readonly schema: GraphQLSchema, private opts: EngineOptions) {
    this.cache = new WeightedLru(opts.cacheSize, opts.cacheBytes);
    const introspection = opts.introspection ? [] : [noIntrospection];
    this.rules = [...specifiedRules, depthLimitRule(opts.depthLimit), ...introspection];
    this.specRules = [...specifiedRules, ...introspection];
  }

  /**
   * Parsed, validated and compiled once per (document, operation name); failures are kept too. A
   * document over the size limit, or a large one over the cost limit, is refused right after parsing and
   * not kept: its cost depends on the variables, and a repeat costs a parse again, no more.
   */
  prepare(query: string, operationName: string | undefined, variables: Record<string, unknown> | undefined): Prepared | GqlResponse {
    const key = `${operationName ?? ''}\u0000${query}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const doc = this.parse(query);
    if (!('kind' in doc)) {
      this.cache.set(key, doc, weightOf(key, doc, 0));
      return doc;
    }
    const size = documentSize(doc, this.opts.maxSelections);
    const refused = this.overLimit(doc, size, operationName, variables ?? {});
    if (refused) return refused;
    const out = this.build(doc, operationName, size.cyclic);
    this.cache.set(key, out, weightOf(key, out, size.selections));
    return out;
  }

  private parse(query: string): DocumentNode | GqlResponse {
    try {
      return parse(query, { maxTokens: this.opts.maxTokens });
    } catch (e) {
      const g = e as GraphQLError;
      return { status: 400, body: errorBody([requestError(g.message, 'GRAPHQL_PARSE_FAILED', g)]) };
    }
  }

  /**
   * The limits, checked on the bare AST, each before the work it bounds: the expanded size before the
   * depth rule and graphql-jit walk it; the cost of a large one before validation and compilation.
   */
  private overLimit(doc: DocumentNode, size: DocumentSize, operationName: string | undefined, vars: Record<string, unknown>): GqlResponse | null {
    if (size.selections > this.opts.maxSelections) {
      return refusal(`Query has more than ${this.opts.maxSelections} selections once its fragments are expanded (graphql.maxSelections): ask for fewer fields or spread fragments fewer times`);
    }
    // Invalid whatever it costs (a fragment cycle, too deep): validation answers, as in Strapi, with all
    // of the document's errors; its work is bounded by the size just checked. So does a document small
    // enough that validating it costs little (an invalid one gets Strapi's errors, not the cost's): a
    // valid one is priced before it runs (execute()).
    if (size.cyclic || size.selections <= VALIDATED_FIRST || deepestOperation(doc) > this.opts.depthLimit) return null;
    // No operation to run: validation or operation resolution answers.
    const operation = chosenOperation(doc, operationName);
    return operation ? this.overCost(operation, fragmentsOf(doc), vars) : null;
  }

  private overCost(operation: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, vars: Record<string, unknown>): GqlResponse | null {
    const cost = operationCost(this.schema, operation, fragments, vars, this.opts.cost);
    if (cost <= this.opts.maxCost) return null;
    return refusal(`Query cost ${shownCost(cost)} exceeds the limit of ${this.opts.maxCost} (graphql.maxCost): ask for smaller pages or fewer fields`);
  }

  private build(doc: DocumentNode, operationName: string | undefined, cyclic: boolean): Prepared | GqlResponse {
    engineWork.validated++;
    const errors = validate(this.schema, doc, cyclic ? this.specRules : this.rules);
    if (errors.length) return { status: 400, body: errorBody(errors.map((g) => requestError(g.message, 'GRAPHQL_VALIDATION_FAILED', g))) };
    const operation = chosenOperation(doc, operationName);
    if (!operation) {
      const message = operationName ? `Unknown operation named "${operationName}".` : 'Must provide operation name if query contains multiple operations.';
      return { status: 400, body: errorBody([requestError(message, 'OPERATION_RESOLUTION_FAILURE')]) };
    }
    const jit = passThroughInputVariables(this.schema, doc);
    engineWork.compiled++;
    const compiled = compileQuery<Record<string, unknown>, Record<string, unknown>>(this.schema, jit.doc, operationName, { disablingCapturingStackErrors: true });
    if (!isCompiledQuery(compiled)) {
      const errs = (compiled.errors ?? []).map((g) => requestError(g.message, 'GRAPHQL_VALIDATION_FAILED', g));
      return { status: 400, body: errorBody(errs) };
    }
    return { compiled, operation, coerceFirst: jit.names, fragments: fragmentsOf(doc) };
  }

  static isPrepared(p: Prepared | GqlResponse): p is Prepared { return 'compiled' in p; }

  async execute(p: Prepared, ctx: GqlContext, variables: Record<string, unknown> | undefined): Promise<GqlResponse> {
    let vars = variables ?? {};
    // Again on every run: a kept operation may come back with variables asking for larger pages.
    const refused = this.overCost(p.operation, p.fragments, vars);
    if (refused) return refused;
    if (p.coerceFirst.length) {
      const ref = getVariableValues(this.schema, p.operation.variableDefinitions ?? [], vars);
      if (ref.errors?.length) return { status: 400, body: errorBody(ref.errors.map((g) => requestError(g.message, 'BAD_USER_INPUT', g))) };
      vars = { ...vars };
      for (const n of p.coerceFirst) if (ref.coerced && n in ref.coerced) vars[n] = ref.coerced[n];
    }
    const result = await p.compiled.query(undefined, ctx, vars);
    const errors = result.errors ?? [];
    if (!('data' in result) || result.data === undefined) {
      // Variables that do not coerce: rejected before execution, as a bad request (with graphql-js's
      // messages, which graphql-jit words slightly differently).
      const ref = getVariableValues(this.schema, p.operation.variableDefinitions ?? [], variables ?? {});
      const list = ref.errors?.length ? ref.errors : errors;
      return { status: 400, body: errorBody(list.map((g) => requestError(g.message, 'BAD_USER_INPUT', g))) };
    }
    const data = JSON.stringify(result.data ?? null);
    const body = errors.length ? `{"errors":${JSON.stringify(errors.map(executionError))},"data":${data}}` : `{"data":${data}}`;
    // A field the database could not answer now: the client (or a load balancer) should retry, not cache.
    // Not after a mutation: it may have committed (only its answer failed), and a retry would write again.
    if (p.operation.operation === 'query' && errors.some((g) => isUnavailable(g.originalError))) return { status: 503, body };
    // Several root fields may each stay under the limit and still add up past it.
    if (body.length > this.opts.maxResponseSize && Buffer.byteLength(body) > this.opts.maxResponseSize) {
      const message = `The response would be larger than ${this.opts.maxResponseSize} bytes (limit http.maxResponseSize): ask for smaller pages, fewer fields or less populate`;
      return { status: 400, body: errorBody([requestError(message, 'BAD_USER_INPUT')]) };
    }
    return { status: 200, body };
  }
}
