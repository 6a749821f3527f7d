// The development/test provider: each message becomes one JSON log line, and the last ones stay in
// memory so a test (same process) can follow the links they carry.
import { log } from '../log.ts';
import type { EmailMessage, EmailProvider } from './types.ts';

const KEEP = 50;
const sent: EmailMessage[] = [];

/** Messages this process "sent" through the log provider, oldest first (at most the last 50). */
export function sentEmails(): readonly EmailMessage[] { return sent; }
export function clearSentEmails(): void { sent.length = 0; }

export function logProvider(): EmailProvider {
  return {
    name: 'log',
    async send(message) {
      sent.push(message);
      if (sent.length > KEEP) sent.splice(0, sent.length - KEEP);
      log.info('email', { provider: 'log', ...message });
    },
  };
}
