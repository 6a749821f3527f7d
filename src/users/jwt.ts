// Users-permissions JWTs: HS256 signed with the configured secret, payload {id}; jose refuses
// `alg: none` and any algorithm other than the one we allow.
import { SignJWT, jwtVerify } from 'jose';

export class Jwt {
  private key: Uint8Array;
  constructor(secret: string, private expiresIn: string) { this.key = new TextEncoder().encode(secret); }

  sign(id: number): Promise<string> {
    return new SignJWT({ id }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setIssuedAt().setExpirationTime(this.expiresIn).sign(this.key);
  }

  /** The user id in a valid token, or null (bad signature, expired, malformed, wrong algorithm). */
  async verify(token: string): Promise<number | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] });
      const id = Number(payload.id);
      return Number.isInteger(id) && id > 0 ? id : null;
    } catch {
      return null;
    }
  }
}
