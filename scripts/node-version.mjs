/**
 * Saturate runs its TypeScript on Node's own type stripping, which Node 22.12 and newer do without a flag;
 * older Node dies on the first .ts import with ERR_UNKNOWN_FILE_EXTENSION. This check runs first, in plain
 * JavaScript that Node 18 and 20 still read: from `npm start` (scripts/start.mjs) and as `npm install`'s
 * preinstall step (run directly, it exits 1 on an old Node).
 * SATURATE_NODE_VERSION stands in for `process.versions.node`, so tests can play an old Node on a new one.
 */
import { pathToFileURL } from 'node:url';

/** The oldest Node that runs Saturate, as [major, minor]. @type {[number, number]} */
export const MIN_NODE = [22, 12];

/**
 * Whether `version` ("20.19.0", "v22.11.0") is older than MIN_NODE.
 * @example nodeTooOld('20.19.0') // true
 * @example nodeTooOld('22.12.0') // false
 * @param {string} version
 * @returns {boolean}
 */
export function nodeTooOld(version) {
  const [major = 0, minor = 0] = String(version).replace(/^v/, '').split('.').map(Number);
  return major < MIN_NODE[0] || (major === MIN_NODE[0] && minor < MIN_NODE[1]);
}

/**
 * What to tell someone on Node `version`: what is needed, and how to get it.
 * @param {string} version
 * @returns {string}
 */
export function oldNodeMessage(version) {
  return [
    `Saturate needs Node ${MIN_NODE.join('.')} or newer; this is Node ${String(version).replace(/^v/, '')}.`,
    'Get Node 24 (the current LTS) in one of these ways, then run the command again:',
    '  nvm install 24 && nvm use 24             (https://github.com/nvm-sh/nvm)',
    '  fnm install 24 && fnm use 24             (https://github.com/Schniz/fnm)',
    '  the installer or binaries on https://nodejs.org/en/download',
    'On Debian or Ubuntu, `apt install nodejs` may still give Node 20 or older: use one of the above instead.',
  ].join('\n');
}

/**
 * The Node version to judge: SATURATE_NODE_VERSION when set (tests), else this process's.
 * @param {Record<string, string | undefined>} env
 * @returns {string}
 */
export function currentNodeVersion(env = process.env) {
  return env.SATURATE_NODE_VERSION || process.versions.node;
}

/** Exits 1 with `oldNodeMessage` when this Node is too old; returns otherwise. */
export function requireNode() {
  const version = currentNodeVersion();
  if (!nodeTooOld(version)) return;
  console.error(oldNodeMessage(version));
  process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) requireNode();
