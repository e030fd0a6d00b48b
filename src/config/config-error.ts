// A configuration that cannot be used. The message names the file or variable, the setting's path and why,
// in one line, so that start-up fails with something to act on rather than a stack trace.

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}
