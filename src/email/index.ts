// Picks the configured provider and fills in the configured sender (Strapi's email plugin settings
// `defaultFrom` / `defaultReplyTo`) when a message names none.
import type { Config } from '../../config.ts';
import { logProvider } from './log.ts';
import { smtpProvider } from './smtp.ts';
import type { EmailMessage, EmailProvider } from './types.ts';

export type { EmailMessage, EmailProvider } from './types.ts';

export function emailProvider(config: Config['email']): EmailProvider {
  const inner = config.provider === 'smtp' ? smtpProvider(config) : logProvider();
  return {
    name: inner.name,
    send: (m: EmailMessage) => inner.send({
      ...m,
      from: m.from || config.from || undefined,
      replyTo: m.replyTo || config.replyTo || undefined,
    }),
  };
}
