// Client-safe (no server code): the replay's transcript view reads stored conversations through lib/agent/transcript.ts.

/** A message of the conversation the agent keeps with the model. */
export interface ChatMessage {
  role: "user" | "assistant";
  content: string;
}

/** Rough token count (the scripted server's `usage` block, the context budget): about four characters a token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * How many earlier turns (assistant/user pairs after the task) must be left out for the
 * conversation to fit a token budget: the first message (the task) and the latest turns stay.
 */
export function turnsToDrop(system: string, messages: ChatMessage[], budgetTokens: number): number {
  const cost = (m: ChatMessage) => estimateTokens(m.content) + 4;
  let total = estimateTokens(system) + messages.reduce((s, m) => s + cost(m), 0);
  if (total <= budgetTokens || messages.length <= 2) return 0;
  let dropped = 0;
  // Drop the oldest assistant/user pair after the task while over budget, keeping the last message.
  for (let i = 1; total > budgetTokens && messages.length - i > 2; i += 2) {
    total -= cost(messages[i]!) + cost(messages[i + 1]!);
    dropped++;
  }
  return dropped;
}

/**
 * The conversation with `dropped` turns left out after the first message (pairs, so roles still
 * alternate), the first message saying how many. The one place this is done: the agent loop when
 * it calls the model and the transcript when it shows what the model was sent.
 */
export function dropTurns<M extends ChatMessage>(messages: M[], dropped: number): M[] {
  if (dropped <= 0) return messages;
  const first = messages[0]!;
  const note = `\n\n(${dropped} earlier turn${dropped === 1 ? " was" : "s were"} left out to fit the model's context.)`;
  return [{ ...first, content: first.content + note }, ...messages.slice(1 + 2 * dropped)];
}

/** Keeps a conversation within a token budget (see turnsToDrop and dropTurns). */
export function fitToContext(system: string, messages: ChatMessage[], budgetTokens: number): ChatMessage[] {
  return dropTurns(messages, turnsToDrop(system, messages, budgetTokens));
}
