// The few Node built-ins the SDK uses, declared here so that TypeScript is its only
// devDependency (no @types/node). Nothing public refers to these declarations: the emitted
// .d.ts files stay free of Node's types, and a consumer's own @types/node is not disturbed.

declare module "node:crypto" {
  interface Hmac {
    update(data: string | Uint8Array): Hmac;
    digest(): Uint8Array;
    digest(encoding: "hex"): string;
  }
  export function createHmac(algorithm: "sha256", key: string | Uint8Array): Hmac;
  export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean;
  export function randomUUID(): string;
}
