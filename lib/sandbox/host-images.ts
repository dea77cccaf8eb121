import "server-only";

import path from "node:path";

import type Docker from "dockerode";

import { config, type DockerHostSetting } from "@/lib/config";
import { SandboxError } from "@/lib/errors";
import { connectDocker, IMAGE_BUILDS, imageTag, probeHost, type HostProbe } from "./docker-hosts";
import type { SandboxImage } from "./types";

/**
 * Puts the Studio images a Docker host lacks onto it (`icstudio hosts --load`): streamed from a
 * host that has them (`docker save` there into `docker load` here, no file in between), or, when
 * no host has one, built on the target from its Dockerfile over its base image (IMAGE_BUILDS) (which
 * must itself be on the target or loadable from another host: only scripts/build-images.sh makes
 * it, with mmdebstrap).
 */

/** A host as `icstudio hosts` sees it. */
export interface HostState {
  setting: DockerHostSetting;
  docker: Docker;
  probe: HostProbe;
}

/** Every host probed at once. */
export async function probeHosts(settings: DockerHostSetting[]): Promise<HostState[]> {
  return Promise.all(
    settings.map(async (setting) => {
      const docker = connectDocker(setting);
      return { setting, docker, probe: await probeHost(docker, !config().dockerHosts) };
    }),
  );
}

/** What happened to one image. */
export interface LoadedImage {
  image: SandboxImage;
  /** "present": it was there already; "loaded": streamed from `from`; "built": built on the target. */
  how: "present" | "loaded" | "built";
  from?: string;
  ms: number;
}

/** Reads a docker JSON progress stream to its end; an `error` line rejects. */
function followProgress(docker: Docker, stream: NodeJS.ReadableStream, onLine?: (line: Record<string, unknown>) => void): Promise<Record<string, unknown>[]> {
  return new Promise((resolve, reject) => {
    docker.modem.followProgress(
      stream,
      (err: Error | null, out: Record<string, unknown>[]) => {
        if (err) return reject(err);
        const bad = out.find((l) => l.error || l.errorDetail);
        if (bad) return reject(new Error(String(bad.error ?? JSON.stringify(bad.errorDetail))));
        resolve(out);
      },
      onLine,
    );
  });
}

async function hasImage(docker: Docker, tag: string): Promise<boolean> {
  return docker
    .getImage(tag)
    .inspect()
    .then(
      () => true,
      () => false,
    );
}

/** Streams `tags` from `source` into `target` (one `docker save` of them all, so shared layers travel once). */
async function streamImages(source: Docker, target: Docker, tags: string[]): Promise<void> {
  // dockerode has GET /images/get (several names in one tar) but its types do not declare it.
  const save = source as unknown as { getImages(opts: { names: string[] }): Promise<NodeJS.ReadableStream> };
  const tar = await save.getImages({ names: tags });
  const loading = (await target.loadImage(tar, { quiet: true })) as unknown as NodeJS.ReadableStream;
  await followProgress(target, loading);
  const missing = (await Promise.all(tags.map(async (t) => ((await hasImage(target, t)) ? null : t)))).filter(Boolean);
  if (missing.length) throw new Error(`the engine did not keep ${missing.join(", ")} after loading`);
}

/** Builds one environment image on `docker` from docker/ (no network, on its base image: IMAGE_BUILDS). */
async function buildImage(docker: Docker, image: SandboxImage, onLog: (line: string) => void): Promise<void> {
  const { dockerfile, base } = IMAGE_BUILDS[image];
  const stream = (await docker.buildImage(
    { context: path.join(config().repoRoot, "docker"), src: [dockerfile] },
    { t: imageTag(image), dockerfile, buildargs: { BASE_IMAGE: base }, networkmode: "none", q: true },
  )) as unknown as NodeJS.ReadableStream;
  await followProgress(docker, stream, (l) => {
    if (typeof l.stream === "string" && l.stream.trim()) onLog(l.stream.trim());
  });
}

/**
 * Loads or builds `images` onto `target` where missing. Sources are the other answering hosts
 * that have them (`sources`, tried in order). Throws a SandboxError naming the host and image
 * when an image can be neither loaded nor built.
 */
export async function loadImagesOntoHost(
  target: HostState,
  sources: HostState[],
  images: readonly SandboxImage[],
  onLog: (line: string) => void = () => {},
): Promise<LoadedImage[]> {
  const name = target.setting.name;
  if (!target.probe.up) throw new SandboxError(`${name} does not answer: ${target.probe.reason}`);
  const present = new Set(target.probe.images);
  const done: LoadedImage[] = images.filter((i) => present.has(i)).map((image) => ({ image, how: "present", ms: 0 }));
  let todo = images.filter((i) => !present.has(i));
  // One save per source of every image it has, so layers shared by the images are sent once.
  for (const source of sources) {
    if (!todo.length) break;
    if (!source.probe.up || source.setting.name === name) continue;
    const has = source.probe.images;
    const batch = todo.filter((i) => has.includes(i));
    if (!batch.length) continue;
    onLog(`${name}: loading ${batch.map(imageTag).join(", ")} from ${source.setting.name}`);
    const started = performance.now();
    try {
      await streamImages(source.docker, target.docker, batch.map(imageTag));
    } catch (err) {
      onLog(`${name}: loading from ${source.setting.name} failed: ${(err as Error).message}`);
      continue;
    }
    const ms = performance.now() - started;
    for (const image of batch) done.push({ image, how: "loaded", from: source.setting.name, ms });
    todo = todo.filter((i) => !batch.includes(i));
  }
  for (const image of todo) {
    const started = performance.now();
    const { base } = IMAGE_BUILDS[image];
    if (!(await hasImage(target.docker, base))) {
      let withBase: HostState | null = null;
      for (const s of sources) {
        if (!withBase && s.probe.up && s.setting.name !== name && (await hasImage(s.docker, base))) withBase = s;
      }
      if (!withBase) {
        throw new SandboxError(
          `${name}: no host has ${imageTag(image)} to load, and ${base} to build it on is missing there too: run bash scripts/build-images.sh against one engine, then icstudio hosts --load ${name}`,
        );
      }
      onLog(`${name}: loading ${base} from ${withBase.setting.name} to build on`);
      await streamImages(withBase.docker, target.docker, [base]);
    }
    onLog(`${name}: building ${imageTag(image)} from docker/${IMAGE_BUILDS[image].dockerfile} on ${base}`);
    try {
      await buildImage(target.docker, image, onLog);
    } catch (err) {
      throw new SandboxError(`${name}: building ${imageTag(image)} failed: ${(err as Error).message}`);
    }
    done.push({ image, how: "built", ms: performance.now() - started });
  }
  return done;
}
