// The e2e tests take these from here; they live in lib/testing/browser.ts (bench uses them too).
export { launchBrowser, useBrowser, type Browser } from "@/lib/testing/browser";
