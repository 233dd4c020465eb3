/**
 * Syntax trees of YAML files already read in this process, for a second reading of the same text
 * under other rules. A vLLM --config file given to lint directly is read once to recognise it (YAML
 * 1.2, as every launch file) and once as vLLM reads it (YAML 1.1, PyYAML's rules): lexing and parsing
 * are the same for both, only composing the values differs, so the second reading composes the
 * first one's tree. A tree is used only for the very text it was made from.
 */
import { Composer, LineCounter, parseDocument, Parser, type CST, type Document, type DocumentOptions, type ParseOptions, type SchemaOptions } from 'yaml';

export interface SyntaxTree {
  text: string;
  tokens: CST.Token[];
  lines: LineCounter;
}

/** Lexes and parses `text` (no values composed yet), keeping where each line starts. */
export function syntaxTree(text: string): SyntaxTree {
  const lines = new LineCounter();
  return { text, tokens: Array.from(new Parser(lines.addNewLine).parse(text)), lines };
}

const remembered = new Map<string, SyntaxTree>();

export function rememberSyntaxTree(file: string, tree: SyntaxTree): void {
  remembered.set(file, tree);
}

type Options = ParseOptions & DocumentOptions & SchemaOptions;

/**
 * The single YAML document of `text` composed with `options`, as `parseDocument` gives it, reusing
 * the remembered tree of `file` when it is of this text and holds one document.
 */
export function composeDocument(file: string, text: string, options: Options): { doc: Document.Parsed; lines: LineCounter } {
  const tree = remembered.get(file);
  if (tree && tree.text === text && tree.tokens.filter((t) => t.type === 'document').length === 1) {
    const docs = Array.from(new Composer(options).compose(tree.tokens, true, text.length));
    if (docs.length === 1) return { doc: docs[0], lines: tree.lines };
  }
  const lines = new LineCounter();
  return { doc: parseDocument(text, { ...options, lineCounter: lines }), lines };
}
