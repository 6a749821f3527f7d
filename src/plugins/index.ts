// The plugins every node runs, in the order they are asked to claim a path.
import type { Config } from '../../config.ts';
import type { Schema } from '../../compiler/schema.ts';
import type { Plugin } from './types.ts';
import { usersPlugin } from '../users/plugin.ts';
import { uploadPlugin } from '../upload/plugin.ts';
import { graphqlPlugin } from '../graphql/plugin.ts';
import type { ProjectExtensions } from '../graphql/extension.ts';
import { i18nPlugin } from '../i18n/plugin.ts';
import type { MostOf } from '../graphql/fan-outs.ts';

/**
 * `project`: what a Strapi project's register() gave the GraphQL extension service (see graphqlPlugin);
 * `mostOf`: what the tables hold, for GraphQL's cost (src/db/fan-outs.ts).
 */
export function plugins(config: Config, schema: Schema, project?: Promise<ProjectExtensions | null>, mostOf?: MostOf): Plugin[] {
  const users = usersPlugin(config, schema);
  const upload = uploadPlugin(config, schema);
  return [users, i18nPlugin(), upload, graphqlPlugin(config, schema, users, upload, project, mostOf)];
}
