// The boundary between users-permissions and whatever delivers its messages (Strapi's email plugin
// `send({to, from, replyTo, subject, text, html})`).
export interface EmailMessage {
  to: string;
  from?: string;
  replyTo?: string;
  subject: string;
  text: string;
  html: string;
}

export interface EmailProvider {
  readonly name: string;
  send(message: EmailMessage): Promise<void>;
}
