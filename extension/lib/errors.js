/** A refusal the rater can act on: `code` for tests and logic, `message` for people. */
export class TrailmarkError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "TrailmarkError";
    this.code = code;
  }
}
