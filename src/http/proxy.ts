// Strapi's `server.proxy` (koa's `proxy`): behind a load balancer the peer of the socket is the proxy, and
// the client is named by X-Forwarded-For. Without the setting those headers are ignored (anyone can send
// them). With it, the chain `X-Forwarded-For…, socket peer` is walked from the right past trusted hops;
// the first untrusted address is the client (Express's `trust proxy` rule: a client cannot forge its way
// past a proxy that appends what it saw).
import { BlockList, isIP } from 'node:net';

export type ProxySetting = boolean | number | string[];
export interface Peer { ip: string; proto: 'http' | 'https' }

/** Addresses as uWS reports them, cut to their usual text form (IPv4-mapped IPv6 → IPv4, no zero padding). */
export function normalizeIp(text: string): string {
  let ip = text.trim();
  if (ip.startsWith('[') && ip.includes(']')) ip = ip.slice(1, ip.indexOf(']'));
  const mapped = /^(?:0{1,4}:){5}ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip) ?? /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  if (ip.includes(':') && /^[0-9a-f:]+$/i.test(ip)) {
    // uWS writes every group with four digits; compress as usual so logs and rate-limit keys match.
    const groups = ip.split(':').map((g) => g.replace(/^0+(?=[0-9a-f])/i, '').toLowerCase());
    const joined = groups.join(':');
    const best = /(?:^|:)0(?::0)+(?::|$)/g;
    let longest = '';
    for (const m of joined.matchAll(best)) if (m[0].length > longest.length) longest = m[0];
    return longest ? joined.replace(longest, '::') : joined;
  }
  return ip;
}

export class TrustedProxies {
  private readonly list: BlockList | null = null;
  constructor(private readonly setting: ProxySetting) {
    if (Array.isArray(setting)) {
      this.list = new BlockList();
      for (const entry of setting) {
        const [addr, bits] = entry.split('/');
        const family = isIP(addr);
        if (!family) throw new Error(`proxy: "${entry}" is not an IP address or CIDR range`);
        const type = family === 6 ? 'ipv6' : 'ipv4';
        if (bits === undefined) this.list.addAddress(addr, type);
        else this.list.addSubnet(addr, Number(bits), type);
      }
    }
  }

  get enabled(): boolean { return this.setting !== false && this.setting !== 0; }

  private trusts(ip: string, hop: number): boolean {
    if (this.setting === true) return true;
    if (typeof this.setting === 'number') return hop < this.setting;
    const family = isIP(ip);
    return !!family && !!this.list?.check(ip, family === 6 ? 'ipv6' : 'ipv4');
  }

  /** The client and protocol of a request from `socketIp` carrying these forwarded headers. */
  resolve(socketIp: string, forwardedFor: string, forwardedProto: string): Peer {
    if (!this.enabled || !this.trusts(socketIp, 0)) return { ip: socketIp, proto: 'http' };
    const chain = forwardedFor ? forwardedFor.split(',').map((s) => normalizeIp(s)).filter(Boolean) : [];
    let ip = socketIp;
    for (let i = chain.length - 1, hop = 1; i >= 0; i--, hop++) {
      const hopIp = chain[i];
      // Garbage ends the walk: the last hop that could be read is the client.
      if (!isIP(hopIp)) break;
      ip = hopIp;
      if (!this.trusts(hopIp, hop)) break;
    }
    const first = forwardedProto.split(',')[0].trim().toLowerCase();
    return { ip, proto: first === 'https' ? 'https' : 'http' };
  }
}
