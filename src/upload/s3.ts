// The `aws-s3` upload provider, as Strapi's @strapi/provider-upload-aws-s3: objects at
// `<rootPath>/<hash><ext>` (formats alike) in one bucket of AWS S3 or an S3-compatible service, so
// several nodes share the uploads. A record's URL is `<baseUrl>/<key>` when a CDN URL is set, else the
// object's own URL (virtual-hosted on AWS, path style on a custom endpoint unless told otherwise). With
// the `private` ACL, reads through the upload API answer presigned GET URLs (Strapi's getSignedUrl).
import type { S3Client, ObjectCannedACL, S3ClientConfig } from '@aws-sdk/client-s3';
import { ApiError } from '../../compiler/errors.ts';
import { log } from '../log.ts';
import type { Storage, StoredBlob, StoredFile } from './storage.ts';

export interface S3ProviderOptions {
  baseUrl: string;
  rootPath: string;
  s3Options: {
    credentials: { accessKeyId: string; secretAccessKey: string };
    region: string;
    endpoint: string;
    forcePathStyle: boolean | null;
    params: { Bucket: string; ACL: string; signedUrlExpires: number };
  };
}

// The SDK is loaded on first use: a server on the local provider never pays for it (~90 ms, ~25 MB a thread).
let sdk: Promise<[typeof import('@aws-sdk/client-s3'), typeof import('@aws-sdk/s3-request-presigner')]> | null = null;
const loadSdk = () => (sdk ??= Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/s3-request-presigner')])
  .catch((e: unknown) => { sdk = null; throw e; }));

/** The AWS SDK's extendedEncodeURIComponent: what S3 object URLs escape in a key segment. */
const encodeSegment = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const encodeKey = (key: string): string => key.split('/').map(encodeSegment).join('/');

/** An endpoint as the SDK wants it: Strapi's examples give bare host names (`s3.fr-par.scw.cloud`). */
export const normalizeEndpoint = (endpoint: string): string => (endpoint && !/^https?:\/\//i.test(endpoint) ? `https://${endpoint}` : endpoint).replace(/\/+$/, '');

/** Strapi's isUrlFromBucket: whether a stored URL names an object of this bucket (a CDN URL never does). */
export function isUrlFromBucket(fileUrl: string, bucket: string, baseUrl: string): boolean {
  if (baseUrl) return false;
  let url: URL;
  try { url = new URL(fileUrl); } catch { return false; }
  const aws = /^(.+\.)?s3[.-]([a-z0-9-]+)\./.exec(url.host);
  if (aws) {
    const named = aws[1] ? aws[1].slice(0, -1) : url.pathname.split('/')[1] || null;
    if (named) return named === bucket;
  }
  return url.host.startsWith(`${bucket}.`) || url.pathname.includes(`/${bucket}/`);
}

export class S3Storage implements Storage {
  readonly provider = 'aws-s3';
  private readonly clientConfig: S3ClientConfig;
  private clientPromise: Promise<S3Client> | null;
  private readonly bucket: string;
  private readonly acl: string;
  private readonly expires: number;
  private readonly prefix: string;
  private readonly baseUrl: string;
  /** The URL every object URL starts with, before the encoded key. */
  private readonly objectBase: string;

  constructor(opts: S3ProviderOptions, client?: S3Client) {
    const s3 = opts.s3Options;
    this.bucket = s3.params.Bucket;
    this.acl = s3.params.ACL;
    this.expires = s3.params.signedUrlExpires;
    this.prefix = opts.rootPath ? `${opts.rootPath.replace(/\/+$/, '')}/` : '';
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    const endpoint = normalizeEndpoint(s3.endpoint);
    const region = s3.region || 'us-east-1';
    // Path style: an S3-compatible server on its own host rarely resolves `<bucket>.<host>`.
    const pathStyle = s3.forcePathStyle ?? !!endpoint;
    const config: S3ClientConfig = {
      region,
      forcePathStyle: pathStyle,
      // A stuck S3 endpoint must not hold an upload request for ever.
      requestHandler: { connectionTimeout: 5000, requestTimeout: 60_000 },
    };
    if (endpoint) config.endpoint = endpoint;
    // Otherwise the SDK's own chain: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, a profile, an instance role.
    if (s3.credentials.accessKeyId && s3.credentials.secretAccessKey) config.credentials = { ...s3.credentials };
    this.clientConfig = config;
    this.clientPromise = client ? Promise.resolve(client) : null;
    if (endpoint) {
      const u = new URL(endpoint);
      const path = u.pathname.replace(/\/+$/, '');
      this.objectBase = pathStyle ? `${u.protocol}//${u.host}${path}/${encodeSegment(this.bucket)}/` : `${u.protocol}//${encodeSegment(this.bucket)}.${u.host}${path}/`;
    } else {
      // AWS: virtual-hosted, except for dotted bucket names (no TLS certificate covers them) or when asked.
      this.objectBase = pathStyle || this.bucket.includes('.')
        ? `https://s3.${region}.amazonaws.com/${encodeSegment(this.bucket)}/`
        : `https://${this.bucket}.s3.${region}.amazonaws.com/`;
    }
  }

  /** The SDK and one client, made on first use (a failed load is tried again next time). */
  private async sdk() {
    const modules = await loadSdk();
    const client = await (this.clientPromise ??= Promise.resolve(new modules[0].S3Client(this.clientConfig)));
    return { s3: modules[0], presigner: modules[1], client };
  }

  private key(fileName: string): string { return `${this.prefix}${fileName}`; }

  urlOf(fileName: string): string {
    const key = this.key(fileName);
    return this.baseUrl ? `${this.baseUrl}/${key}` : `${this.objectBase}${encodeKey(key)}`;
  }

  isPrivate(): boolean { return this.acl === 'private'; }

  /** Logs what S3 said (the operator's clue) and answers Strapi's 500 for a provider failure. */
  private failure(operation: string, key: string, e: unknown): ApiError {
    const err = e as { name?: string; message?: string; $metadata?: { httpStatusCode?: number }; code?: string };
    log.error('upload provider aws-s3 failed', {
      operation, bucket: this.bucket, key, error: err?.name ?? String(e), status: err?.$metadata?.httpStatusCode, code: err?.code, message: err?.message,
    });
    return new ApiError(500, 'InternalServerError', 'Internal Server Error', {});
  }

  private async put(b: StoredBlob): Promise<void> {
    const key = this.key(b.fileName);
    try {
      const { s3, client } = await this.sdk();
      await client.send(new s3.PutObjectCommand({
        Bucket: this.bucket, Key: key, Body: b.data, ContentType: b.mime, ContentLength: b.data.length,
        ...(this.acl ? { ACL: this.acl as ObjectCannedACL } : {}),
      }));
    } catch (e) { throw this.failure('PutObject', key, e); }
  }

  /** Puts every object (a replace overwrites: S3 swaps an object whole); on a failure removes the new ones. */
  async writeAll(blobs: StoredBlob[], opts: { replace?: boolean } = {}): Promise<void> {
    const results = await Promise.allSettled(blobs.map((b) => this.put(b)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (!failed) return;
    if (!opts.replace) await this.removeAll(blobs.filter((_, i) => results[i].status === 'fulfilled').map((b) => b.fileName));
    throw failed.reason;
  }

  async removeAll(fileNames: string[]): Promise<void> {
    await Promise.all(fileNames.map(async (f) => {
      const key = this.key(f);
      // Deleting a missing key succeeds in S3: only real failures are reported.
      try {
        const { s3, client } = await this.sdk();
        await client.send(new s3.DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
      } catch (e) {
        const err = e as { name?: string; message?: string };
        log.warn('could not remove upload from S3', { bucket: this.bucket, key, error: err?.name ?? String(e), message: err?.message });
      }
    }));
  }

  async signedUrl(file: StoredFile): Promise<string> {
    if (!isUrlFromBucket(file.url, this.bucket, this.baseUrl)) return file.url;
    const key = this.key(`${file.hash}${file.ext}`);
    try {
      const { s3, presigner, client } = await this.sdk();
      return await presigner.getSignedUrl(client, new s3.GetObjectCommand({ Bucket: this.bucket, Key: key }), { expiresIn: this.expires });
    } catch (e) { throw this.failure('getSignedUrl', key, e); }
  }
}
