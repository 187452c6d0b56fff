// Compiles the demo contracts in src/ with solcjs (standard-JSON input), writes
// artifacts/<Name>.abi and artifacts/<Name>.bin, then regenerates the Go bindings in
// ../bindings/ with abigen (v2 style). Run: npm ci && node build.mjs
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const solc = require("solc");

const here = path.dirname(fileURLToPath(import.meta.url));
const srcDir = path.join(here, "src");
const artifactsDir = path.join(here, "artifacts");
const bindingsDir = path.join(here, "..", "bindings");

// Contracts to compile, in src/<Name>.sol, and the Go file each binding goes to.
const contracts = [
  { name: "DemoNFT", goFile: "demonft.go" },
  { name: "DemoToken", goFile: "demotoken.go" },
  { name: "PriceFeed", goFile: "pricefeed.go" },
  { name: "Multicall3", goFile: "multicall3.go" },
  { name: "ResetToken", goFile: "resettoken.go" },
];

// Import callback: "@openzeppelin/..." and other package paths resolve inside node_modules.
function findImports(importPath) {
  const candidates = [
    path.join(here, "node_modules", importPath),
    path.join(srcDir, importPath),
  ];
  for (const file of candidates) {
    if (fs.existsSync(file)) {
      return { contents: fs.readFileSync(file, "utf8") };
    }
  }
  return { error: `File not found: ${importPath}` };
}

const sources = {};
for (const { name } of contracts) {
  const key = `src/${name}.sol`;
  sources[key] = { content: fs.readFileSync(path.join(here, key), "utf8") };
}

const input = {
  language: "Solidity",
  sources,
  settings: {
    evmVersion: "cancun",
    optimizer: { enabled: true, runs: 200 },
    // No CBOR metadata hash: the bytecode then depends only on the sources and the settings,
    // not on file paths or comments, so rebuilding gives the same committed artifacts.
    metadata: { bytecodeHash: "none", appendCBOR: false },
    outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
  },
};

console.log(`solc ${solc.version()}`);
const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports }));

let failed = false;
for (const e of output.errors ?? []) {
  if (e.severity === "error") failed = true;
  console.error(e.formattedMessage ?? e.message);
}
if (failed) {
  process.exit(1);
}

fs.mkdirSync(artifactsDir, { recursive: true });
fs.mkdirSync(bindingsDir, { recursive: true });

for (const { name, goFile } of contracts) {
  const out = output.contracts?.[`src/${name}.sol`]?.[name];
  if (!out) {
    console.error(`no output for ${name}`);
    process.exit(1);
  }
  const abiFile = path.join(artifactsDir, `${name}.abi`);
  const binFile = path.join(artifactsDir, `${name}.bin`);
  fs.writeFileSync(abiFile, JSON.stringify(out.abi, null, 2) + "\n");
  fs.writeFileSync(binFile, out.evm.bytecode.object + "\n");
  console.log(`${name}: ${out.evm.bytecode.object.length / 2} bytes of init code`);

  // `go tool abigen` runs the abigen version pinned in go.mod (tool directive).
  execFileSync(
    "go",
    [
      "tool", "abigen", "--v2",
      "--abi", abiFile,
      "--bin", binFile,
      "--pkg", "bindings",
      "--type", name,
      "--out", path.join(bindingsDir, goFile),
    ],
    { cwd: here, stdio: "inherit" },
  );
  fs.chmodSync(path.join(bindingsDir, goFile), 0o644); // abigen writes 0600
}
console.log(`wrote ${path.relative(here, artifactsDir)}/ and ${path.relative(here, bindingsDir)}/`);
