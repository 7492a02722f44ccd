/**
 * `node scripts/fleet-rules.ts`: writes deploy/prometheus/saturate-rules.yml from server/fleet/rules/recording-rules.ts
 * (the engine's thresholds in one place). `--check` exits 1 when the file is not what the module writes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { rulesYaml } from '../server/fleet/rules/recording-rules.ts';

/** Where the rules file lives. */
export const RULES_FILE = join(import.meta.dirname, '..', 'deploy', 'prometheus', 'saturate-rules.yml');

if (import.meta.main) {
  const text = rulesYaml();
  if (process.argv.includes('--check')) {
    if (readFileSync(RULES_FILE, 'utf8') !== text) {
      console.error(`${RULES_FILE} is out of date: run node scripts/fleet-rules.ts`);
      process.exit(1);
    }
  } else writeFileSync(RULES_FILE, text);
}
