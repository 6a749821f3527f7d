// SMTP delivery through nodemailer: one pooled transport per worker, created at the first message so a
// server that never sends email never connects.
import { createTransport, type Transporter } from 'nodemailer';
import type { Config } from '../../config.ts';
import type { EmailProvider } from './types.ts';

export function smtpProvider(config: Config['email']): EmailProvider {
  let transport: Transporter | null = null;
  const get = () => (transport ??= createTransport({
    pool: true,
    host: config.smtp.host,
    port: config.smtp.port,
    secure: config.smtp.secure,
    ...(config.smtp.user ? { auth: { user: config.smtp.user, pass: config.smtp.password } } : {}),
  }));
  return {
    name: 'smtp',
    async send(message) {
      await get().sendMail({
        to: message.to, from: message.from, replyTo: message.replyTo || undefined,
        subject: message.subject, text: message.text, html: message.html,
      });
    },
  };
}
