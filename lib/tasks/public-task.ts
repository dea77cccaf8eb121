import { z } from "zod";
import { envNameSchema } from "@/lib/datasets/types";

/**
 * What a player may see of a task: never the gold solution, never python's tests. Sent in the
 * playground's open message and shown by the task panel; client-safe.
 */
export const publicTaskSchema = z.object({
  env: envNameSchema,
  dataset: z.string(),
  id: z.string(),
  index: z.number().int(),
  /** `<dataset>:<id>`, the task's address in URLs and messages. */
  ref: z.string(),
  query: z.string(),
  /** sql */
  db: z.string().optional(),
  hardness: z.string().optional(),
  tables: z.record(z.string(), z.array(z.string())).optional(),
  /** bash: file system name and a listing of its working directory (paths, "/" ending directories). */
  fs: z.string().optional(),
  /** bash: whose file system that is: InterCode's own (built by the fetch) or the project's (demo tasks, or before a fetch). */
  fsSource: z.enum(["intercode", "studio"]).optional(),
  tree: z.array(z.string()).optional(),
  /** python: the function the hidden tests call. */
  functionName: z.string().optional(),
  /** ctf */
  tags: z.array(z.string()).optional(),
  /** ctf: why the task's files are not here (absent from the published data), when they are not. */
  filesMissing: z.string().optional(),
});
export type PublicTask = z.infer<typeof publicTaskSchema>;
