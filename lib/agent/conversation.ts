import type { ChatMessage } from "./call-model";
import { estimateTokens } from "./scripted-server";

/**
 * Keeps a conversation within a token budget: the first message (the task) and the latest turns
 * stay; turns in the middle are dropped in assistant/user pairs (so roles still alternate), and
 * the first message says how many were left out.
 */
export function fitToContext(system: string, messages: ChatMessage[], budgetTokens: number): ChatMessage[] {
  const cost = (m: ChatMessage) => estimateTokens(m.content) + 4;
  let total = estimateTokens(system) + messages.reduce((s, m) => s + cost(m), 0);
  if (total <= budgetTokens || messages.length <= 2) return messages;
  const first = messages[0]!;
  const rest = messages.slice(1);
  let dropped = 0;
  // Drop the oldest assistant/user pair after the task while over budget, keeping the last message.
  while (total > budgetTokens && rest.length > 2) {
    const [a, b] = rest.splice(0, 2);
    total -= cost(a!) + cost(b!);
    dropped++;
  }
  const note = `\n\n(${dropped} earlier turn${dropped === 1 ? " was" : "s were"} left out to fit the model's context.)`;
  return [{ role: first.role, content: first.content + note }, ...rest];
}
