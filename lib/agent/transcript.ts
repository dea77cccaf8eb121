import { dropTurns } from "./conversation";

/** A stored message of the conversation (see lib/db/transcripts.ts). */
export interface StoredMessage {
  seq: number;
  turnIndex: number;
  role: "system" | "user" | "assistant";
  content: string;
  droppedTurns: number | null;
}

/** One model call: what it was sent (as the policy built it) and its raw reply. */
export interface TranscriptCall {
  system: string;
  /** The conversation as sent, earlier turns left out when the context was full. */
  sent: { role: "user" | "assistant"; content: string; seq: number }[];
  reply: string;
  replySeq: number;
  droppedTurns: number;
}

/** A turn's transcript: its model calls, and the messages it sent that got no reply (a failed call). */
export interface TurnTranscript {
  turnIndex: number;
  calls: TranscriptCall[];
  unanswered: { role: "user" | "assistant"; content: string; seq: number }[];
}

/**
 * Rebuilds what the model was sent at a turn from the episode's messages (each stored once): for
 * every reply the turn added, the system prompt and the messages before it, with the turns that
 * were left out to fit the context left out again the same way (dropTurns).
 */
export function turnTranscript(messages: readonly StoredMessage[], turnIndex: number): TurnTranscript {
  const system = messages.find((m) => m.role === "system")?.content ?? "";
  const chat = messages.filter((m): m is StoredMessage & { role: "user" | "assistant" } => m.role !== "system");
  const calls: TranscriptCall[] = [];
  let lastReplyPos = -1;
  chat.forEach((m, pos) => {
    if (m.turnIndex !== turnIndex || m.role !== "assistant") return;
    const before = chat.slice(0, pos).map((x) => ({ role: x.role, content: x.content, seq: x.seq }));
    const dropped = m.droppedTurns ?? 0;
    const sent = dropTurns(before, dropped);
    calls.push({ system, sent, reply: m.content, replySeq: m.seq, droppedTurns: dropped });
    lastReplyPos = pos;
  });
  const unanswered = chat.filter((m, pos) => m.turnIndex === turnIndex && pos > lastReplyPos).map((m) => ({ role: m.role, content: m.content, seq: m.seq }));
  return { turnIndex, calls, unanswered };
}
