// A blocks attribute's value as Strapi 5.54 takes it (@strapi/core entity-validator/blocks-validator, a yup
// schema; checked live): a list of block nodes (paragraph, heading, quote, list, image, code) whose inline
// children are text and link nodes, each checked with that schema's words at its path. A value that is no
// list is stored as null (an object, a number, text that is no JSON list: Strapi answers 201 with null), a
// JSON text of a list is that list.

import { show, yupPath } from './yup-print.ts';

export interface BlockError { path: string[]; message: string; value?: unknown; withValue: boolean }

/** The value a blocks attribute stores for `v` (undefined and null are the caller's). */
export function blocksValue(v: unknown): unknown[] | null {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string') {
    try {
      const parsed: unknown = JSON.parse(v);
      return Array.isArray(parsed) ? parsed : null;
    } catch { return null; }
  }
  return null;
}


const LINK_PROTOCOLS = new Set(['http:', 'https:', 'ftp:', 'mailto:', 'tel:']);
function validLink(link: string): boolean {
  try {
    return LINK_PROTOCOLS.has(new URL(link.startsWith('/') ? `https://strapi.io${link}` : link).protocol);
  } catch { return false; }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

const MARKS = ['bold', 'italic', 'underline', 'strikethrough', 'code'];
const IMAGE_REQUIRED = ['name', 'url', 'width', 'height', 'hash', 'ext', 'mime', 'size', 'provider', 'createdAt', 'updatedAt'];

class Checker {
  readonly errors: BlockError[] = [];
  private fail(path: string[], message: string, value?: unknown, withValue = true): void {
    this.errors.push({ path, message, value, withValue });
  }

  /** `children: yup.array().of(item).min(1, minMessage).required()`. */
  private children(node: Obj, path: string[], item: (v: unknown, p: string[]) => void, minMessage: string | null): void {
    const at = [...path, 'children'];
    let c = node.children;
    if (c === undefined) { this.fail(at, `${yupPath(at)} is a required field`, undefined, false); return; }
    // yup's array reads text as JSON, anything else that is no list as null; the cast value is what Strapi stores.
    if (!Array.isArray(c)) {
      const given = c;
      try { c = typeof given === 'string' ? JSON.parse(given) : null; } catch { c = null; }
      if (!Array.isArray(c)) { this.fail(at, `${yupPath(at)} must be a \`array\` type, but the final value was: \`null\` (cast from the value \`${show(given)}\`).`, null); return; }
      node.children = c;
    }
    if (minMessage && c.length < 1) this.fail(at, minMessage, c);
    c.forEach((x, i) => item(x, [...at, String(i)]));
  }

  private oneOf(node: Obj, key: string, path: string[], allowed: readonly (string | number)[], numeric: boolean): void {
    const at = [...path, key];
    const v = node[key];
    if (v === undefined) { this.fail(at, `${yupPath(at)} is a required field`, undefined, false); return; }
    if (numeric && typeof v !== 'number') {
      // yup's number casts text (the number is what Strapi stores); text that is no number fails its type
      // and the list of values, both reporting null.
      const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
      if (Number.isNaN(n)) {
        this.fail(at, `${yupPath(at)} must be a \`number\` type, but the final value was: \`NaN\` (cast from the value \`${show(v)}\`).`, null);
        this.fail(at, `${yupPath(at)} must be one of the following values: ${allowed.join(', ')}`, null);
        return;
      }
      node[key] = n;
    }
    if (!allowed.includes(node[key] as string | number)) this.fail(at, `${yupPath(at)} must be one of the following values: ${allowed.join(', ')}`, node[key]);
  }

  text(v: unknown, path: string[]): void {
    const node = v as Obj;
    // yup's string and boolean casts: a number's text is stored; a mark reads `true|1`, `false|0` as they say.
    if (typeof node.text === 'number' || typeof node.text === 'boolean') node.text = String(node.text);
    if (node.text === undefined) this.fail([...path, 'text'], 'Text must be defined with at least an empty string', undefined, false);
    for (const mark of MARKS) {
      const m = node[mark];
      if (m === undefined || m === null || typeof m === 'boolean') continue;
      if (/^(true|1)$/i.test(String(m))) node[mark] = true;
      else if (/^(false|0)$/i.test(String(m))) node[mark] = false;
      else { const at = [...path, mark]; this.fail(at, `${yupPath(at)} must be a \`boolean\` type, but the final value was: \`${show(m)}\`.`, m); }
    }
  }

  private link(node: Obj, path: string[]): void {
    const url = node.url;
    if (!validLink(typeof url === 'string' ? url : '')) this.fail([...path, 'url'], 'Please specify a valid link.', url, url !== undefined);
    this.children(node, path, (x, p) => this.textOnly(x, p), null);
  }

  /** A text node where only text may stand (a link's or a code block's children). */
  private textOnly(v: unknown, path: string[]): void {
    const node = isObj(v) ? v : {};
    if (node.type !== 'text') {
      const at = [...path, 'type'];
      if (node.type === undefined) this.fail(at, `${yupPath(at)} is a required field`, undefined, false);
      else this.fail(at, `${yupPath(at)} must be one of the following values: text`, node.type);
    }
    this.text(node, path);
  }

  inline(v: unknown, path: string[]): void {
    const type = isObj(v) ? v.type : undefined;
    if (type === 'text') this.text(v, path);
    else if (type === 'link') this.link(v as Obj, path);
    else this.fail(path, 'Inline node must be Text or Link', v);
  }

  private listChild(v: unknown, path: string[]): void {
    const type = isObj(v) ? v.type : undefined;
    if (type === 'list') this.list(v as Obj, path);
    else if (type === 'list-item') this.children(v as Obj, path, (x, p) => this.inline(x, p), null);
    else this.fail(path, 'Inline node must be list-item or list', v);
  }

  private list(node: Obj, path: string[]): void {
    this.oneOf(node, 'format', path, ['ordered', 'unordered'], false);
    this.children(node, path, (x, p) => this.listChild(x, p), 'List node children must have at least one ListItem or ListNode');
  }

  block(v: unknown, path: string[]): void {
    const node = isObj(v) ? v : null;
    switch (node?.type) {
      case 'paragraph': this.children(node, path, (x, p) => this.inline(x, p), 'Paragraph node children must have at least one Text or Link node'); return;
      case 'heading':
        this.oneOf(node, 'level', path, [1, 2, 3, 4, 5, 6], true);
        this.children(node, path, (x, p) => this.inline(x, p), 'Heading node children must have at least one Text or Link node');
        return;
      case 'quote': this.children(node, path, (x, p) => this.inline(x, p), 'Quote node children must have at least one Text or Link node'); return;
      case 'code': this.children(node, path, (x, p) => this.textOnly(x, p), 'Quote node children must have at least one Text or Link node'); return;
      case 'list': this.list(node, path); return;
      case 'image': {
        const image = node.image;
        if (isObj(image)) {
          for (const k of IMAGE_REQUIRED) {
            const at = [...path, 'image', k];
            if (image[k] === undefined || image[k] === null) this.fail(at, `${yupPath(at)} is a required field`, undefined, false);
          }
        }
        this.children(node, path, (x, p) => this.inline(x, p), null);
        return;
      }
      default: this.fail(path, 'Block node is of invalid type', v);
    }
  }
}

/** The errors of a blocks list, shallowest first (as yup reports them: a node's own before its children's). */
export function blocksErrors(list: unknown[], path: string[]): BlockError[] {
  const c = new Checker();
  list.forEach((node, i) => c.block(node, [...path, String(i)]));
  return c.errors.map((e, i) => ({ e, i })).sort((a, b) => a.e.path.length - b.e.path.length || a.i - b.i).map((x) => x.e);
}
