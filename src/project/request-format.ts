// Whether the request a project's code runs for asked for Strapi v4's answer shape (`Strapi-Response-Format:
// v4`): Strapi's transformResponse reads it from its request context, which controllers do not pass along.
// Only requests with the header enter this store: the others pay nothing.
import { AsyncLocalStorage } from 'node:async_hooks';

export const v4Format = new AsyncLocalStorage<true>();
