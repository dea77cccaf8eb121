"use client";

import { Fragment, useMemo } from "react";
import { useCutText } from "./cut-text";

const KEYWORDS: Record<string, RegExp> = {
  sql: /^(select|from|where|group|by|order|having|join|inner|left|right|outer|on|as|and|or|not|in|is|null|like|limit|distinct|count|sum|avg|min|max|union|insert|update|delete|create|table|desc|asc|show|tables|describe|between|case|when|then|else|end|exists|intersect|except)$/i,
  bash: /^(if|then|else|elif|fi|for|while|do|done|case|esac|in|function|echo|cd|ls|cat|grep|find|awk|sed|xargs|sort|uniq|head|tail|wc|mkdir|rm|cp|mv|chmod|touch|export|submit)$/,
  python:
    /^(def|return|if|elif|else|for|while|in|not|and|or|is|None|True|False|import|from|as|class|lambda|try|except|finally|with|yield|pass|break|continue|print|len|range)$/,
  ctf: /^(if|then|else|fi|for|do|done|echo|cd|ls|cat|grep|find|base64|xxd|strings|file|unzip|tar|python3|submit)$/,
};

const TOKEN = /(#[^\n]*|--[^\n]*)|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(\b\d+(?:\.\d+)?\b)|([A-Za-z_][A-Za-z0-9_]*)|(\s+|[^\sA-Za-z0-9_'"#-]+|-)/g;

/** An action with light syntax colouring: keywords, strings, numbers and comments. */
export function Highlight({ code: full, env }: { code: string; env: string }) {
  const { shown, more } = useCutText(full);
  const parts = useMemo(() => highlightParts(shown, env), [shown, env]);
  return (
    <>
      <code className="whitespace-pre-wrap break-words font-mono text-xs">{parts}</code>
      {more}
    </>
  );
}

function highlightParts(code: string, env: string): React.ReactNode[] {
  const kw = KEYWORDS[env] ?? KEYWORDS.bash;
  const parts: React.ReactNode[] = [];
  let i = 0;
  for (const m of code.matchAll(TOKEN)) {
    const [text, comment, str, num, word] = m;
    const isComment = comment && (env === "sql" ? text.startsWith("--") : text.startsWith("#"));
    if (isComment)
      parts.push(
        <span key={i++} className="text-zinc-400 italic">
          {text}
        </span>,
      );
    else if (comment) parts.push(<Fragment key={i++}>{text}</Fragment>);
    else if (str)
      parts.push(
        <span key={i++} className="text-amber-300">
          {text}
        </span>,
      );
    else if (num)
      parts.push(
        <span key={i++} className="text-sky-300">
          {text}
        </span>,
      );
    else if (word && kw.test(word))
      parts.push(
        <span key={i++} className="text-fuchsia-300 font-semibold">
          {text}
        </span>,
      );
    else parts.push(<Fragment key={i++}>{text}</Fragment>);
  }
  return parts;
}
