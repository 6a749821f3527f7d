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
    case Kind.OBJECT: {
      const o: Record<string, unknown> = {};
      for (const f of v.fields) o[f.name.value] = literal(f.value, vars);
      return o;
    }
    default: return undefined;
  }
}

/** The list size a field's `pagination` argument asks for, if it asks one. */
function askedSize(args: readonly { name: { value: string }; value: ValueNode }[] | undefined, vars: Vars, limits: CostLimits): number | null {
  let p: { value: ValueNode } | undefined;
  for (const a of args ?? []) if (a.name.value === 'pagination') { p = a; break; }
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

/** A list's size: its page, no larger than the data holds (`most`) and never below one entry. */
const held = (page: number, most: number | undefined) => (most === undefined ? page : Math.min(page, Math.max(1, most)));

export function operationCost(schema: GraphQLSchema, op: OperationDefinitionNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, vars: Vars, limits: CostLimits): number {
  const root = op.operation === 'mutation' ? schema.getMutationType() : op.operation === 'subscription' ? schema.getSubscriptionType() : schema.getQueryType();
  if (!root) return 0;
  return new CostWalk(schema, fragments, vars, limits).walk(op.selectionSet, root, 1, null);
}

/**
 * One operation's pricing. A class rather than closures: it runs for every request, and each function
 * created per call gets its name defined anew under tsx (keepNames), about half of the pricing's time.
 */
class CostWalk {
  private visiting = new Set<string>();
  // A fragment's cost read once (the cost is linear in how many times a selection is read).
  private perSpread = new Map<string, number>();

  constructor(private schema: GraphQLSchema, private fragments: ReadonlyMap<string, FragmentDefinitionNode>, private vars: Vars, private limits: CostLimits) {}

  /** Fields are looked up on an object type: a fragment on one narrows a union; on a union it does not. */
  private narrowed(cond: string | undefined, type: GraphQLNamedType): GraphQLNamedType {
    const t = cond ? this.schema.getType(cond) : undefined;
    return t && isObjectType(t) ? t : type;
  }

  private fragmentCost(f: FragmentDefinitionNode, type: GraphQLNamedType, pending: number | null): number {
    const key = `${f.name.value}\u0000${type.name}\u0000${pending}`;
    let cost = this.perSpread.get(key);
    if (cost === undefined) {
      this.visiting.add(f.name.value);
      cost = this.walk(f.selectionSet, type, 1, pending);
      this.visiting.delete(f.name.value);
      this.perSpread.set(key, cost);
    }
    return cost;
  }

  /** `pending`: a size asked by an enclosing field (`articles_connection(pagination:…) { nodes { … } }`). */
  walk(set: SelectionSetNode, type: GraphQLNamedType, n: number, pending: number | null): number {
    const { limits } = this;
    let total = 0;
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) {
        if (s.name.value.startsWith('__')) continue;
        const field: GraphQLField<unknown, unknown> | undefined = isObjectType(type) ? (type as GraphQLObjectType).getFields()[s.name.value] : undefined;
        total += n;
        if (!field || !s.selectionSet) continue;
        const asked = askedSize(s.arguments, this.vars, limits);
        const list = isListType(getNullableType(field.type));
        // A list holds no more than its page nor than the data has; still one entry at least, so every
        // selection under it counts whatever the tables hold (aliases cost what they are).
        const most = limits.most?.(type.name, s.name.value);
        const size = list ? held(asked ?? pending ?? limits.defaultList, most) : 1;
        // A wrapper's page (a connection's, v4's `data`) is its nodes' list: held by the field's own data too.
        const next = list ? null : most === undefined ? asked ?? pending : held(asked ?? pending ?? limits.defaultList, most);
        total += this.walk(s.selectionSet, getNamedType(field.type), times(n, size), next);
      } else if (s.kind === Kind.INLINE_FRAGMENT) {
        total += this.walk(s.selectionSet, this.narrowed(s.typeCondition?.name.value, type), n, pending);
      } else {
        const f = this.fragments.get(s.name.value);
        // A fragment spreading itself (invalid: validation refuses it) adds nothing more.
        if (!f || this.visiting.has(f.name.value)) continue;
        total += times(n, this.fragmentCost(f, this.narrowed(f.typeCondition.name.value, type), pending));
      }
    }
    return total;
  }
}
