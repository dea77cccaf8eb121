// Inspect AI's own log viewer (npm @metrevals/inspect-log-viewer), opening one log over HTTP:
// what e2e/inspect-viewer.test.ts serves with a log the Studio exported.
import { createRoot } from "react-dom/client";
import { App, clientApi, initializeStore, simpleHttpApi } from "@metrevals/inspect-log-viewer";
import "@metrevals/inspect-log-viewer/styles/index.css";

const api = clientApi(simpleHttpApi(undefined, new URLSearchParams(location.search).get("log_file") ?? undefined));
initializeStore(api, { downloadFiles: false, downloadLogs: false, webWorkers: false, streamSamples: false, streamSampleData: false }, undefined);
createRoot(document.getElementById("root")!).render(<App api={api} />);
