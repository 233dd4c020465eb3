/**
 * Generated tokens → response text, incrementally: streaming UTF-8 decoding (a multi-byte character
 * is held until it completes) and stop strings. Text that could still be the start of a stop string
 * is held back, so a streamed response never shows text a later stop string would have removed;
 * streamed and non-streamed outputs are therefore identical. The matched stop string is cut (unless
 * include_stop_str_in_output); tokens after the one that completed it are dropped.
 */
import type { EmittedToken } from '../engine/sequence.js';
import { newStreamDecodeState, type StreamDecodeState, type Tokenizer } from '../engine/tokenizer.js';

export interface TextDelta {
  text: string;
  tokens: EmittedToken[];
  /** The stop string that ended the output, if one did. */
  stopped: string | null;
}

export class OutputText {
  private readonly utf8: StreamDecodeState = newStreamDecodeState();
  private held = '';
  private readonly holdBack: number;
  stopped: string | null = null;

  constructor(
    private readonly tokenizer: Tokenizer,
    private readonly stops: readonly string[],
    private readonly includeStop: boolean,
  ) {
    this.holdBack = Math.max(0, ...stops.map((s) => s.length - 1));
  }

  push(tokens: readonly EmittedToken[]): TextDelta {
    const kept: EmittedToken[] = [];
    let text = '';
    for (const t of tokens) {
      if (this.stopped !== null) break;
      kept.push(t);
      this.held += this.tokenizer.decodeToken(t.id, this.utf8);
      const hit = this.findStop();
      if (hit) {
        this.stopped = hit.stop;
        text += this.held.slice(0, hit.index) + (this.includeStop ? hit.stop : '');
        this.held = '';
        return { text, tokens: kept, stopped: hit.stop };
      }
      const emit = Math.max(0, this.held.length - this.holdBack);
      text += this.held.slice(0, emit);
      this.held = this.held.slice(emit);
    }
    return { text, tokens: kept, stopped: null };
  }

  /** At the end of generation: the held text, plus an unfinished UTF-8 character as U+FFFD. */
  flush(): string {
    if (this.stopped !== null) return '';
    const pending = this.utf8.pending.length ? new TextDecoder().decode(Uint8Array.from(this.utf8.pending)) : '';
    this.utf8.pending.length = 0;
    const text = this.held + pending;
    this.held = '';
    return text;
  }

  private findStop(): { stop: string; index: number } | null {
    let best: { stop: string; index: number } | null = null;
    for (const stop of this.stops) {
      if (!stop) continue;
      const index = this.held.indexOf(stop);
      if (index >= 0 && (!best || index < best.index)) best = { stop, index };
    }
    return best;
  }
}
