/** A deployment configuration that cannot work; thrown when configuration is loaded (src/config.ts). */
export class ConfigError extends Error {
  constructor(message: string) {
    super(`configuration: ${message}`);
    this.name = "ConfigError";
  }
}
