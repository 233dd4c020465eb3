import { defineHazard } from '../hazard.js';
import { flagsNotAccepted } from '../conditions/flags-accepted.js';

/** Not a silent corruption: a launch vLLM would refuse, found while the rest of it is still checked. */
export const FL000 = defineHazard({
  id: 'FL000',
  alias: 'flag-not-accepted',
  engines: ['vllm', 'sglang', 'llama.cpp'],
  severity: 'warning',
  summary:
    'a flag or value the engine does not accept as written: not a flag, choice or JSON sub-key of this release, or an ambiguous abbreviation — the server would not start',
  mechanism:
    'vLLM parses `vllm serve` arguments with argparse (FlexibleArgumentParser, allow_abbrev left on): an option string ' +
    'the parser does not register is "unrecognized arguments", and a prefix that matches several option strings is ' +
    '"ambiguous option"; both end the process before the engine starts. faultline checks each flag against the flag ' +
    'table generated from that release\'s own source (data/vllm-flags/; SGLang\'s in data/sglang-flags/; llama-server\'s, ' +
    'from llama.cpp\'s common/arg.cpp, in data/llama-cpp-flags/, where a word llama-server does not know, a removed flag or ' +
    'a value std::stoi cannot read ends the process the same way), and each ' +
    'choice and JSON sub-key against the values that table (and vLLM\'s config fields) has; the other hazards are ' +
    'checked all the same, reading the flag with the value it was given. A launch newer than the tables (or of an ' +
    'unknown version) gets this finding as "possibly" for whatever the tables lack, never a refusal.',
  affected: { vllm: 'every release: each release has its own set of flags' },
  confidence: 'confirmed',
  conditions: [flagsNotAccepted()],
  locateAt: 'flag-not-accepted',
  remedies: [
    {
      id: 'drop-the-flag',
      change: { unset: 'enable_prefix_cacheing' },
      label:
        'drop the flag, fix its spelling or write the full option name; for a flag of a newer release, run that release (and tell lint with --vllm-version, --sglang-version or --llama-cpp-version)',
      why: 'the parser then matches every option exactly; flags come and go between releases, and the table of the release that runs decides',
    },
  ],
  nonRemedies: [],
  examples: {
    failing: {
      command: 'vllm serve Qwen/Qwen3-8B --enable-prefix-cacheing',
      vllm: '0.27.1',
      points: '--enable-prefix-cacheing',
    },
    clean: { command: 'vllm serve Qwen/Qwen3-8B --enable-prefix-caching', vllm: '0.27.1' },
  },
  references: [
    { title: 'Python argparse: allow_abbrev and prefix matching', url: 'https://docs.python.org/3/library/argparse.html#allow-abbrev' },
    { title: 'vLLM: vllm serve arguments', url: 'https://docs.vllm.ai/en/latest/cli/serve/' },
  ],
  docs: {
    problem:
      'The launch would fail at start-up with "unrecognized arguments" or "ambiguous option", or — when the vLLM ' +
      'version is not known — uses a flag faultline\'s tables do not have. A container that restarts on failure ' +
      'loops; a flag meant to turn a feature off never takes effect.',
    exceptions:
      'Without --vllm-version (or an official image tag) faultline cannot tell a misspelled flag from one of a newer ' +
      'or patched vLLM, so the finding is "possibly". Pre-release and nightly builds are checked against the table of ' +
      'their minor release, which may lack flags added on main since.',
  },
});
