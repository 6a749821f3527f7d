// The part of s3rver (a JavaScript S3 emulator without bundled types) that test/upload-s3.test.ts uses.
declare module 's3rver' {
  interface S3rverOptions {
    port?: number; address?: string; silent?: boolean; directory: string;
    configureBuckets?: Array<{ name: string; configs: Array<string | Buffer> }>;
  }
  export default class S3rver {
    constructor(options: S3rverOptions);
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
