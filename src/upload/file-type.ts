// Which type an uploaded file is stored with, and whether the project's upload security lets it in:
// Strapi 5.54's mime-validation (validateFile, then enhanceAndValidateFile) between the part's declared
// Content-Type, the file name's extension and the type its bytes show (src/upload/sniff.ts). A client's
// claim alone never decides: a text file sent as image/png is stored as text/plain.
import { extname } from 'node:path';
import { mimeOf } from './mime.ts';
import { sniffMime } from './sniff.ts';

/** `plugin::upload.security` of config/plugins: types by pattern (`image/*`); unset lists check nothing. */
export interface UploadSecurity { allowedTypes: string[] | null; deniedTypes: string[] | null }

export type MimeChoice = { mime: string } | { error: string };

/** Strapi's matchesMimePattern: case-insensitive, `*` matching anything. */
function matches(type: string, patterns: readonly string[] | null | undefined): boolean {
  if (!patterns?.length) return false;
  const t = type.toLowerCase();
  return patterns.some((p) => {
    const pattern = p.toLowerCase();
    if (!pattern.includes('*')) return pattern === t;
    return new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(t);
  });
}

const notAllowed = (type: string): MimeChoice => ({ error: `File type '${type}' is not allowed` });

/** The allow and deny lists applied to the type chosen. */
function allowed(type: string, security: UploadSecurity): MimeChoice {
  if (matches(type, security.deniedTypes)) return notAllowed(type);
  if (!security.allowedTypes) return { mime: type };
  if (security.allowedTypes.length === 0) return { error: 'MIME type is not allowed' };
  return matches(type, security.allowedTypes) ? { mime: type } : notAllowed(type);
}

/** The type a file is stored with, or why the project's security refuses it. */
export function chooseMime(filename: string, declaredType: string | null, data: Uint8Array, security: UploadSecurity): MimeChoice {
  const declared = declaredType ? declaredType.split(';')[0].trim().toLowerCase() : '';
  const generic = !declared || declared === 'application/octet-stream';
  const ext = extname(filename).toLowerCase();
  const fromExt = ext ? mimeOf(ext) : null;
  if (!generic && matches(declared, security.deniedTypes)) return notAllowed(declared);
  if (fromExt && matches(fromExt, security.deniedTypes)) return notAllowed(fromExt);
  const detected = sniffMime(data);
  // A declaration its name and its bytes agree with is taken as it is.
  if (!generic && fromExt && (matches(declared, [fromExt]) || matches(fromExt, [declared])) && detected && matches(detected, [declared])) {
    return allowed(declared, security);
  }
  if (detected && matches(detected, security.deniedTypes)) return notAllowed(detected);
  // What the bytes show must be allowed, whatever the name or the declaration say; but office files
  // show as zip archives and SVG as XML, so their extension's type may stand for them.
  const zipOfAllowedExt = detected === 'application/zip' && fromExt !== null && fromExt !== 'application/zip' && !!security.allowedTypes?.length && matches(fromExt, security.allowedTypes);
  const svgOfAllowedExt = detected === 'application/xml' && ext === '.svg' && fromExt === 'image/svg+xml' && !!security.allowedTypes?.length && matches(fromExt, security.allowedTypes);
  if (detected && security.allowedTypes?.length && !matches(detected, security.allowedTypes) && !zipOfAllowedExt && !svgOfAllowedExt) {
    return { error: 'MIME type is not allowed' };
  }
  if (detected && (!fromExt || matches(detected, [fromExt]) || generic)) {
    if (detected === 'application/zip' && fromExt && fromExt !== 'application/zip') {
      const byExt = allowed(fromExt, security);
      if ('mime' in byExt) return byExt;
    }
    return allowed(detected, security);
  }
  if (fromExt) return allowed(fromExt, security);
  if (declared) return allowed(declared, security);
  return { error: 'Cannot verify file type for security reasons' };
}
