// X-Request-Id: the client's (or its load balancer's) when it is a sane token, so one id follows a request
// across systems; otherwise a new one. Sent back on every response and written in the access line.
import { randomUUID } from 'node:crypto';

const SANE = /^[\w.:@/+=-]{1,200}$/;

export const requestId = (given: string): string => (given && SANE.test(given) ? given : randomUUID());
