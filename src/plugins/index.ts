// The plugins every node runs, in the order they are asked to claim a path.
import type { Config } from '../../config.ts';
import type { Schema } from '../../compiler/schema.ts';
import type { Plugin } from './types.ts';
import { usersPlugin } from '../users/plugin.ts';

export function plugins(config: Config, _schema: Schema): Plugin[] {
  return [usersPlugin(config.auth.authRateLimit)];
}
