/**
 * The chat template of the byte-level tiny models (documented here because the checkpoint ships none).
 * The model was trained on plain prose, so the template is plain text a reader can follow:
 *
 *   <bos>                                   (id 256, added by the template, as chat templates do)
 *   for each message:   "{Role}: {content}\n\n"     Role = System | User | Assistant | Tool
 *   add_generation_prompt (default true):  "Assistant:"
 *
 * `content` may be a string or OpenAI content parts; only text parts are supported.
 * With continue_final_message the last (assistant) message is left open: no "\n\n" after it and no
 * generation prompt, so the model continues that message.
 */
import { badRequest } from './errors.js';

export interface ChatMessage {
  role: string;
  content: string | { type: string; text?: string }[] | null;
}

const ROLES: Record<string, string> = { system: 'System', developer: 'System', user: 'User', assistant: 'Assistant', tool: 'Tool' };

export function messageText(m: ChatMessage, index: number): string {
  if (m.content === null) return '';
  if (typeof m.content === 'string') return m.content;
  return m.content
    .map((p, j) => {
      if (p.type !== 'text' || typeof p.text !== 'string') throw badRequest(`messages[${index}].content[${j}]: only text content parts are supported by this model`, 'messages');
      return p.text;
    })
    .join('');
}

/** The prompt text (without BOS; the caller prepends the BOS id). */
export function renderChat(messages: readonly ChatMessage[], o: { addGenerationPrompt: boolean; continueFinalMessage: boolean }): string {
  if (messages.length === 0) throw badRequest('messages must contain at least one message', 'messages');
  if (o.continueFinalMessage && o.addGenerationPrompt) throw badRequest('continue_final_message and add_generation_prompt cannot both be true', 'continue_final_message');
  let text = '';
  messages.forEach((m, i) => {
    const role = ROLES[m.role];
    if (!role) throw badRequest(`messages[${i}].role must be one of ${Object.keys(ROLES).join(', ')}`, 'messages');
    const open = o.continueFinalMessage && i === messages.length - 1;
    text += `${role}: ${messageText(m, i)}${open ? '' : '\n\n'}`;
  });
  if (o.addGenerationPrompt) text += 'Assistant:';
  return text;
}
