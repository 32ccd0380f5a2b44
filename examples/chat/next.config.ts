import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { NextConfig } from "next";

/** This folder: the app's root, not the repository's (which has a lockfile of its own). */
const root = dirname(fileURLToPath(import.meta.url));

// No serverExternalPackages: the routes bundle durable-agent's client-safe root as they bundle any library.
const nextConfig: NextConfig = { outputFileTracingRoot: root, turbopack: { root } };

export default nextConfig;
