import { createLocalBackend } from "./local";
import { registerSandboxConformance } from "./conformance";

// The local backend is always required: bubblewrap is a test prerequisite (CI installs it).
registerSandboxConformance({ name: "local (bubblewrap)", backend: createLocalBackend });
