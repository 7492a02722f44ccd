/** CLI entry of the lab server: `npm run lab -- [flags]` (see server/cli.ts or --help); $PORT sets the port. */
import { exitCodeOf, parseCli, USAGE } from './cli.ts';
import { launch } from './launch.ts';

try {
  const options = parseCli(process.argv.slice(2), process.env);
  if (options.help) console.log(USAGE);
  else await launch(options);
} catch (e) {
  console.error(e instanceof Error ? e.message : String(e));
  process.exit(exitCodeOf(e));
}
