import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createByteTokenizer, newStreamDecodeState } from './tokenizer.js';

const tok = createByteTokenizer();

test('encode: UTF-8 bytes, BOS first on request', () => {
  assert.deepEqual(tok.encode('hé'), [0x68, 0xc3, 0xa9]);
  assert.deepEqual(tok.encode('a', { addBos: true }), [256, 0x61]);
  assert.equal(tok.vocabSize, 258);
});

test('decode drops specials and round-trips text', () => {
  const text = 'naïve — ok 🙂\n';
  assert.equal(tok.decode([256, ...tok.encode(text), 257]), text);
});

test('decodeToken holds partial UTF-8 until the character completes', () => {
  const state = newStreamDecodeState();
  const pieces = tok.encode('a🙂b').map((id) => tok.decodeToken(id, state));
  assert.deepEqual(pieces, ['a', '', '', '', '🙂', 'b']);
  assert.equal(pieces.join(''), 'a🙂b');
});

test('decodeToken: an unfinished character followed by ASCII becomes U+FFFD, nothing is lost', () => {
  const state = newStreamDecodeState();
  const out = [0xe2, 0x82, 0x41].map((id) => tok.decodeToken(id, state)).join('');
  assert.equal(out, '\uFFFDA');
  assert.equal(tok.decodeToken(0x80, newStreamDecodeState()), '\uFFFD'); // stray continuation byte
  assert.equal(tok.decodeToken(256, state), ''); // specials produce no text
});

test('tokenText names every id printably', () => {
  assert.equal(tok.tokenText(0x41), 'A');
  assert.equal(tok.tokenText(0x0a), '\\n');
  assert.equal(tok.tokenText(0xe2), '<0xE2>');
  assert.equal(tok.tokenText(256), '<bos>');
  assert.equal(tok.tokenText(257), '<eos>');
});
