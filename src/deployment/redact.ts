/**
 * What counts as a credential in a launch, for reports: flags that carry one (`--api-key`,
 * `--hf-token`, `--ssl-keyfile-password`), environment variables named like one (`HF_TOKEN`,
 * `OPENAI_API_KEY`, `DB_PASSWORD`, `AUTHORIZATION`), and values that look like one (`Bearer …`,
 * Hugging Face `hf_…` tokens, `sk-…` keys) wherever they appear. Names that only mention tokens
 * as a unit (`max_num_batched_tokens`, `TOKENIZERS_PARALLELISM`) are ordinary.
 */

const SECRET_ARGS = new Set(['api_key', 'hf_token', 'ssl_keyfile_password']);

/** A NAME component that means a credential: whole words between `_` / `-`, or the name's end. */
const SECRET_WORD = /(?:^|[_-])(?:api[_-]?key|secret|secrets|password|passwd|pwd|credentials?|auth|authorization|bearer|access[_-]?key|private[_-]?key|token)(?:$|[_-])/i;

/** Values that are credentials whatever their name. */
const SECRET_VALUE = /\b(?:Bearer\s+[\w.~+/-]{8,}=*|hf_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,})/g;

export const REDACTED = '<redacted>';

/** An argparse dest that holds a credential. */
export function isSecretArg(dest: string): boolean {
  return SECRET_ARGS.has(dest);
}

/** An environment variable (or other NAME) that holds a credential. */
export function isSecretName(name: string): boolean {
  return SECRET_WORD.test(name);
}

/** Text with credential-looking values replaced (notes, messages). */
export function redactText(text: string): string {
  return text.replace(SECRET_VALUE, REDACTED);
}

/** A value for a report: redacted when its name says credential, else with credential-looking parts replaced. */
export function redactValue(secret: boolean, value: unknown): unknown {
  if (secret) return REDACTED;
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(false, v));
  return value;
}
