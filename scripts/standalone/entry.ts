/** The standalone executable's main script: the CLI, as bin/faultline.js runs it. */
import { main } from '../../src/cli/main.js';

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
