import { join } from 'node:path';

/**
 * toolman's cache folder as the environment names it: TOOLMAN_CACHE_DIR, else
 * $XDG_CACHE_HOME/toolman, else $HOME/.cache/toolman; undefined when it is `off` or none is set.
 */
export function cacheDir(env: Record<string, string | undefined>): string | undefined {
  const base = env.TOOLMAN_CACHE_DIR ?? (env.XDG_CACHE_HOME ? join(env.XDG_CACHE_HOME, 'toolman') : env.HOME ? join(env.HOME, '.cache', 'toolman') : undefined);
  return base && base !== 'off' ? base : undefined;
}
