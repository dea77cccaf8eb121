import "server-only";
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { StorageError } from "@/lib/errors";
import { storeDir } from "./key-store";
import { modelConfigSchema, type ModelConfig } from "./model-config";
import { connectionTestSchema, type ConnectionTest } from "./model-view";

/**
 * Models added in the models page, and the last connection test of every model (configured or
 * added), in one JSON file beside the store. No keys here: those are in the key store.
 */

export const ADDED_MODELS_FILE = "models.added.json";

const fileSchema = z.object({
  models: z.array(modelConfigSchema).default([]),
  tests: z.record(z.string(), connectionTestSchema).default({}),
});
type AddedFile = z.infer<typeof fileSchema>;

export function addedModelsPath(dir = storeDir()): string {
  return path.join(dir, ADDED_MODELS_FILE);
}

function read(dir: string): AddedFile {
  const file = addedModelsPath(dir);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { models: [], tests: {} };
    throw new StorageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new StorageError(`${file} is not JSON`);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new StorageError(`${file}: ${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data;
}

function write(dir: string, data: AddedFile): void {
  const file = addedModelsPath(dir);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(dir, { recursive: true });
    // 0600: its test results may hold what a provider said, and it names the models' endpoints.
    fs.writeFileSync(tmp, JSON.stringify(data, null, 2) + "\n", { mode: 0o600 });
    fs.chmodSync(tmp, 0o600);
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw new StorageError(`cannot write ${file}: ${(err as Error).message}`);
  }
}

/** The models added in the page, in the order added. */
export function listAddedModels(dir = storeDir()): ModelConfig[] {
  return read(dir).models;
}

/** Adds a model, or replaces the added model with the same id. */
export function saveAddedModel(model: ModelConfig, dir = storeDir()): void {
  const data = read(dir);
  const i = data.models.findIndex((m) => m.id === model.id);
  if (i >= 0) data.models[i] = model;
  else data.models.push(model);
  // A changed endpoint or key makes the old test result meaningless.
  delete data.tests[model.id];
  write(dir, data);
}

/** Removes an added model and its test result; false when no added model has this id. */
export function removeAddedModel(id: string, dir = storeDir()): boolean {
  const data = read(dir);
  const before = data.models.length;
  data.models = data.models.filter((m) => m.id !== id);
  delete data.tests[id];
  if (data.models.length === before) return false;
  write(dir, data);
  return true;
}

/** The last connection test of each model, by id. */
export function listConnectionTests(dir = storeDir()): Record<string, ConnectionTest> {
  return read(dir).tests;
}

export function saveConnectionTest(id: string, test: ConnectionTest, dir = storeDir()): void {
  const data = read(dir);
  data.tests[id] = test;
  write(dir, data);
}
