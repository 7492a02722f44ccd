/** CLI entry of the lab server: `npm run lab -- [flags]` (see server/cli.ts or --help). */
import { CliError, parseCli, USAGE } from './cli.ts';
import { launch } from './launch.ts';

try {
  const options = parseCli(process.argv.slice(2));
  if (options.help) console.log(USAGE);
  else await launch(options);
} catch (e) {
  console.error(e instanceof CliError || e instanceof Error ? e.message : String(e));
  process.exit(2);
}
