// The cost of a GraphQL operation, computed before it runs: every selected field (each alias on its
// own) counts once per object it is read on, and a list multiplies what is selected under it by its
// size — the `pagination` limit/pageSize the field (or the field wrapping it) asks for, else the
// default page size, never more than the amount limit nor than the database holds (the most rows one row
// links to, a root list's table's rows: src/graphql/fan-outs.ts, when known). So 100 aliases of a nested
// list cost 100 times one, and a list of lists costs the product of their sizes: what the response would
// hold at most.
// It runs before validation (src/graphql/engine.ts), on any parsed document: unknown fields and
// fragments count as nothing more, a fragment is walked once per type and enclosing page size
// (memoized), so a fragment spread 2^40 times over costs no more to price than to parse.
import {
  getNamedType, getNullableType, isListType, isObjectType, Kind,
  type FragmentDefinitionNode, type GraphQLField, type GraphQLNamedType, type GraphQLObjectType, type GraphQLSchema,
  type OperationDefinitionNode, type SelectionSetNode, type ValueNode,
} from 'graphql';

export interface CostLimits {
  /** A list's size when the query names none. */
  defaultList: number;
  /** The largest list size a query may ask (graphql.amountLimit). */
  maxList: number;
  /**
   * The most entries field `field` of type `type` holds, as the database last told (src/graphql/fan-outs.ts);
   * undefined: not known, the page size counts alone.
   */
  most?: (type: string, field: string) => number | undefined;
}

type Vars = Record<string, unknown>;

function literal(v: ValueNode, vars: Vars): unknown {
  switch (v.kind) {
    case Kind.VARIABLE: return vars[v.name.value];
    case Kind.INT: case Kind.FLOAT: return Number(v.value);
    case Kind.OBJECT: return Object.fromEntries(v.fields.map((f) => [f.name.value, literal(f.value, vars)]));
    default: return undefined;
  }
}

/** The list size a field's `pagination` argument asks for, if it asks one. */
function askedSize(args: readonly { name: { value: string }; value: ValueNode }[] | undefined, vars: Vars, limits: CostLimits): number | null {
  const p = args?.find((a) => a.name.value === 'pagination');
  if (!p) return null;
  const v = literal(p.value, vars);
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const n = Number(o.limit ?? o.pageSize);
  if (!Number.isFinite(n) || n < 0) return null;
  return Math.min(Math.ceil(n), limits.maxList);
}

/** A product where nothing times anything is nothing (0 × Infinity would be NaN, and NaN passes every limit). */
const times = (a: number, b: number) => (a === 0 || b === 0 ? 0 : a * b);

export function operationCost(schema: GraphQLSchema, op: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, vars: Vars, limits: CostLimits): number {
  const root = op.operation === 'mutation' ? schema.getMutationType() : op.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
  if (!root) return 0;
  const visiting = new Set<string>();
  // A fragment's cost read once (the cost is linear in how many times a selection is read).
  const perSpread = new Map<string, number>();
  // Fields are looked up on an object type: a fragment on one narrows a union; on a union it does not.
  const narrowed = (cond: string | undefined, type: GraphQLNamedType): GraphQLNamedType => {
    const t = cond ? schema.getType(cond) : undefined;
    return t && isObjectType(t) ? t : type;
  };
  const fragmentCost = (f: FragmentDefinitionNode, type: GraphQLNamedType, pending: number | null): number => {
    const key = `${f.name.value}\u0000${type.name}\u0000${pending}`;
    let cost = perSpread.get(key);
    if (cost === undefined) {
      visiting.add(f.name.value);
      cost = walk(f.selectionSet, type, 1, pending);
      visiting.delete(f.name.value);
      perSpread.set(key, cost);
    }
    return cost;
  };
  // `pending`: a size asked by an enclosing field (`articles_connection(pagination:…) { nodes { … } }`).
  const walk = (set: SelectionSetNode, type: GraphQLNamedType, n: number, pending: number | null): number => {
    let total = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value.startsWith('__')) continue;
        const field: GraphQLField<unknown, unknown> | undefined = isObjectType(type) ? (type as GraphQLObjectType).getFields()[s.name.value] : undefined;
        total += n;
        if (!field || !s.selectionSet) continue;
        const asked = askedSize(s.arguments, vars, limits);
        const list = isListType(getNullableType(field.type));
        // A list holds no more than its page nor than the data has; still one entry at least, so every
        // selection under it counts whatever the tables hold (aliases cost what they are).
        const most = limits.most?.(type.name, s.name.value);
        const held = (page: number) => (most === undefined ? page : Math.min(page, Math.max(1, most)));
        const size = list ? held(asked ?? pending ?? limits.defaultList) : 1;
        // A wrapper's page (a connection's, v4's `data`) is its nodes' list: held by the field's own data too.
        const next = list ? null : most === undefined ? asked ?? pending : held(asked ?? pending ?? limits.defaultList);
        total += walk(s.selectionSet, getNamedType(field.type), times(n, size), next);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        total += walk(s.selectionSet, narrowed(s.typeCondition?.name.value, type), n, pending);
      } else {
        const f = fragments.get(s.name.value);
        // A fragment spreading itself (invalid: validation refuses it) adds nothing more.
        if (!f || visiting.has(f.name.value)) continue;
        total += times(n, fragmentCost(f, narrowed(f.typeCondition.name.value, type), pending));
      }
    }
    return total;
  };
  return walk(op.selectionSet, root, 1, null);
}
